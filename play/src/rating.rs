//! The playing strengths a person picks by name, the same in the terminal and in the web page:
//! a rating for the engine's limited strength (`UCI_Elo`, docs/strength.md), or full strength.
//! A rating limits only Patina's own moves; hints, evaluations and analysis stay at full
//! strength.

use std::fmt;

use patina::strength::{MAX_ELO, MIN_ELO};
use patina::Strength;

/// A named rating on the CCRL Blitz scale, or full strength (`elo: None`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rating {
    pub name: &'static str,
    pub elo: Option<u32>,
}

/// From weakest to strongest, as the page lists them.
pub const RATINGS: [Rating; 8] = [
    Rating::named("beginner", MIN_ELO),
    Rating::named("novice", 1500),
    Rating::named("club", 1800),
    Rating::named("tournament", 2000),
    Rating::named("expert", 2200),
    Rating::named("master", 2400),
    Rating::named("grandmaster", 2600),
    Rating::FULL,
];

impl Rating {
    pub const FULL: Self = Self {
        name: "full",
        elo: None,
    };

    const fn named(name: &'static str, elo: u32) -> Self {
        Self {
            name,
            elo: Some(elo),
        }
    }

    /// A rating by number (`MIN_ELO` to `MAX_ELO`), named after the highest named one it reaches.
    pub fn from_elo(elo: u32) -> Result<Self, String> {
        if !(MIN_ELO..=MAX_ELO).contains(&elo) {
            return Err(format!(
                "a rating must be {MIN_ELO} to {MAX_ELO}, not {elo}"
            ));
        }
        let name = RATINGS
            .iter()
            .rev()
            .find(|r| r.elo.is_some_and(|named| named <= elo))
            .map_or(RATINGS[0].name, |r| r.name);
        Ok(Self {
            name,
            elo: Some(elo),
        })
    }

    /// A name of `RATINGS` (any case) or a number.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if let Some(rating) = RATINGS.iter().find(|r| r.name.eq_ignore_ascii_case(text)) {
            return Ok(*rating);
        }
        match text.parse::<u32>() {
            Ok(elo) => Self::from_elo(elo),
            Err(_) => Err(format!(
                "unknown rating '{text}': use {} or a number {MIN_ELO} to {MAX_ELO}",
                names()
            )),
        }
    }

    /// What the engine plays at: `None` for full strength.
    pub fn strength(self) -> Option<Strength> {
        self.elo.map(Strength::from_elo)
    }
}

impl fmt::Display for Rating {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.elo {
            Some(elo) => write!(f, "rated {elo} ({})", self.name),
            None => f.write_str("full strength"),
        }
    }
}

/// The names, for a message: `beginner, novice, ..., full`.
fn names() -> String {
    RATINGS.map(|r| r.name).join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_read_back() {
        for rating in RATINGS {
            assert_eq!(Rating::parse(rating.name), Ok(rating));
            assert_eq!(Rating::parse(&rating.name.to_uppercase()), Ok(rating));
            if let Some(elo) = rating.elo {
                assert_eq!(Rating::parse(&elo.to_string()), Ok(rating));
                assert_eq!(rating.strength(), Some(Strength::from_elo(elo)));
            }
        }
        assert_eq!(Rating::parse("full").unwrap().strength(), None);
        let between = Rating::parse(" 1999 ").unwrap();
        assert_eq!((between.name, between.elo), ("club", Some(1999)));
        assert!(RATINGS.windows(2).all(|w| match (w[0].elo, w[1].elo) {
            (Some(a), Some(b)) => a < b,
            (_, b) => b.is_none(),
        }));
        for bad in ["", "1319", "3001", "-5", "club player", "1e3"] {
            let error = Rating::parse(bad).unwrap_err();
            assert!(
                error.contains("1320") && error.contains("3000"),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn says_what_it_plays_at() {
        assert_eq!(
            Rating::parse("club").unwrap().to_string(),
            "rated 1800 (club)"
        );
        assert_eq!(Rating::FULL.to_string(), "full strength");
    }
}
