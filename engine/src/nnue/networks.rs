//! The nets an engine evaluates with: a main net, and optionally an endgame net that takes over
//! in positions of `ENDGAME_PIECES` pieces or fewer.
//!
//! Why two: a net learns the rare endings (bishop and knight against a lone king) only from
//! drills, and training one net on them moves its evaluations everywhere, a little. An endgame
//! net of its own learns them while every position with more pieces keeps the main net's
//! evaluation exactly. Which net evaluates a position depends on its piece count alone, and
//! pieces only ever leave the board, so along a line the switch happens once, at a capture.

use std::path::Path;

use super::{Network, NetworkError};

/// Positions with at most this many pieces, kings included, are the endgame net's: the main
/// nets' first output bucket (of 8: 2 to 5 pieces), and the positions 5-piece tables answer.
pub const ENDGAME_PIECES: usize = 5;

/// The endgame net, chosen at build time (`EVALFILE_ENDGAME` overrides the file `nets/ENDGAME`
/// names; `none` builds without): its bytes and file name.
static EMBEDDED_ENDGAME_NET: Option<(&[u8], &str)> =
    include!(concat!(env!("OUT_DIR"), "/endgame_net.rs"));

/// The file name of the embedded endgame net, if the build has one.
pub fn embedded_endgame_net_name() -> Option<&'static str> {
    EMBEDDED_ENDGAME_NET.map(|(_, name)| name)
}

#[derive(Clone)]
pub struct Networks {
    pub main: Box<Network>,
    pub endgame: Option<Box<Network>>,
}

/// A main net alone.
impl From<Box<Network>> for Networks {
    fn from(main: Box<Network>) -> Self {
        Self {
            main,
            endgame: None,
        }
    }
}

impl Networks {
    /// The nets built into the binary.
    pub fn embedded() -> Self {
        Self {
            main: Network::embedded(),
            endgame: Self::embedded_endgame(),
        }
    }

    /// The endgame net built into the binary, if any.
    pub fn embedded_endgame() -> Option<Box<Network>> {
        EMBEDDED_ENDGAME_NET.map(|(bytes, name)| {
            Network::from_bytes(bytes)
                .unwrap_or_else(|e| panic!("the embedded endgame net {name} is unusable: {e}"))
        })
    }

    /// The endgame net a path names: `None` for `none`, the embedded one for `<embedded>`.
    pub fn endgame_from(path: &Path) -> Result<Option<Box<Network>>, NetworkError> {
        match path.to_str() {
            Some("none") => Ok(None),
            Some("<embedded>") => Ok(Self::embedded_endgame()),
            _ => Network::load(path).map(Some),
        }
    }
}

/// What evaluates a position, by its number of pieces (kings included): `Networks`, or a single
/// net for every position.
pub trait NetForPieces {
    fn for_pieces(&self, pieces: usize) -> &Network;
}

impl NetForPieces for Networks {
    #[inline]
    fn for_pieces(&self, pieces: usize) -> &Network {
        match &self.endgame {
            Some(endgame) if pieces <= ENDGAME_PIECES => endgame,
            _ => &self.main,
        }
    }
}

impl NetForPieces for Network {
    #[inline]
    fn for_pieces(&self, _pieces: usize) -> &Network {
        self
    }
}

/// As nets are kept: boxed (they are large).
impl<T: NetForPieces + ?Sized> NetForPieces for Box<T> {
    #[inline]
    fn for_pieces(&self, pieces: usize) -> &Network {
        (**self).for_pieces(pieces)
    }
}
