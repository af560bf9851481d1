//! How long the engine thinks per move in `patina play`: a strength a person can pick.

use std::fmt;
use std::time::Duration;

use patina::Limits;

#[derive(Copy, Clone, PartialEq, Debug)]
pub enum Strength {
    MoveTime(Duration),
    Depth(i32),
    Nodes(u64),
}

impl Strength {
    pub fn limits(self) -> Limits {
        match self {
            Self::MoveTime(time) => Limits {
                movetime: Some(time),
                ..Limits::default()
            },
            Self::Depth(depth) => Limits::depth(depth),
            Self::Nodes(nodes) => Limits::nodes(nodes),
        }
    }

    /// Reads `time SECONDS`, `depth N` or `nodes N`, within bounds a person would want.
    pub fn parse(kind: &str, value: &str) -> Result<Self, String> {
        match kind {
            "time" | "movetime" => match value.parse::<f64>() {
                Ok(secs) if (0.01..=3600.0).contains(&secs) => {
                    Ok(Self::MoveTime(Duration::from_secs_f64(secs)))
                }
                _ => Err(format!("time must be 0.01 to 3600 seconds, not '{value}'")),
            },
            "depth" => match value.parse::<i32>() {
                Ok(depth) if (1..=100).contains(&depth) => Ok(Self::Depth(depth)),
                _ => Err(format!("depth must be 1 to 100, not '{value}'")),
            },
            "nodes" => match value.parse::<u64>() {
                Ok(nodes) if nodes >= 1 => Ok(Self::Nodes(nodes)),
                _ => Err(format!("nodes must be a positive number, not '{value}'")),
            },
            _ => Err(format!("unknown level '{kind}': use time, depth or nodes")),
        }
    }
}

impl fmt::Display for Strength {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::MoveTime(time) => write!(f, "{:.2} s per move", time.as_secs_f64()),
            Self::Depth(depth) => write!(f, "depth {depth}"),
            Self::Nodes(nodes) => write!(f, "{nodes} nodes per move"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strength_bounds() {
        assert_eq!(Strength::parse("depth", "8"), Ok(Strength::Depth(8)));
        assert_eq!(
            Strength::parse("time", "0.5"),
            Ok(Strength::MoveTime(Duration::from_millis(500)))
        );
        for (kind, value) in [
            ("depth", "0"),
            ("depth", "x"),
            ("time", "-1"),
            ("time", "NaN"),
            ("time", "inf"),
            ("nodes", "0"),
            ("speed", "1"),
        ] {
            assert!(Strength::parse(kind, value).is_err(), "{kind} {value}");
        }
    }
}
