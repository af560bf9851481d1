//! Patina against a person, in a terminal (`terminal`) or a browser (`web`). A client of the
//! engine library like any GUI: both drive it through its `Engine` facade and share the game
//! model. The `patina-play` binary runs them; the web server's router is public so that tests
//! and the fuzzer can put requests to it without a socket.

mod clock;
mod game;
mod rating;
mod score;
mod strength;
pub mod terminal;
pub mod web;
