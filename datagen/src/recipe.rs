//! What a directory's games were played with (net, nodes per move, openings, adjudication),
//! kept in `selfplay-recipe` beside them. A resumed run must play to the same recipe, so one
//! directory never mixes two (games at 2500 and 5000 nodes, say), and a net's lineage reads
//! what its data were from here rather than from memory.

use std::path::Path;

use crate::keyfile;

pub const FILE_NAME: &str = "selfplay-recipe";

/// The settings that shape the games, each as the text the file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipe {
    pairs: Vec<(String, String)>,
}

impl Recipe {
    /// `pairs`: (key, value) with single-word keys; values are free text.
    pub fn new(pairs: Vec<(&str, String)>) -> Self {
        Self {
            pairs: pairs
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value))
                .collect(),
        }
    }

    /// The value of `key`, if the recipe has it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The recipe `dir` holds, if any.
    pub fn read(dir: &Path) -> Result<Option<Self>, String> {
        Ok(keyfile::read(&dir.join(FILE_NAME))?.map(|pairs| Self { pairs }))
    }

    /// Makes this the recipe of `dir`'s games: written where the directory has none (a new
    /// one, or one from before datagen kept recipes, whose games are taken to be of this
    /// recipe), accepted where it holds the same, refused where it holds another.
    pub fn claim(&self, dir: &Path) -> Result<(), String> {
        match Self::read(dir)? {
            Some(held) if held == *self => Ok(()),
            Some(held) => {
                let (there, here) = differences(&held, self);
                Err(format!(
                    "{} holds games played with {there}; this run would play with {here}: \
                     give another --out",
                    dir.display()
                ))
            }
            None => {
                let pairs: Vec<(&str, String)> = self
                    .pairs
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.clone()))
                    .collect();
                keyfile::write(&dir.join(FILE_NAME), &pairs)
                    .map_err(|e| format!("{}: {e}", dir.join(FILE_NAME).display()))
            }
        }
    }
}

/// The settings on which `held` and `wanted` differ, as `key value` text for each side (a key
/// only one of them has shows as `(none)` on the other).
fn differences(held: &Recipe, wanted: &Recipe) -> (String, String) {
    let mut keys: Vec<&str> = Vec::new();
    for (key, _) in held.pairs.iter().chain(&wanted.pairs) {
        if !keys.contains(&key.as_str()) && held.get(key) != wanted.get(key) {
            keys.push(key);
        }
    }
    let side = |recipe: &Recipe| {
        keys.iter()
            .map(|key| format!("{key} {}", recipe.get(key).unwrap_or("(none)")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    (side(held), side(wanted))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(nodes: u64) -> Recipe {
        Recipe::new(vec![
            ("net", "gen6.nnue".into()),
            ("nodes", nodes.to_string()),
            ("openings", "start position, 8-9 random plies".into()),
        ])
    }

    #[test]
    fn a_directory_keeps_one_recipe() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Recipe::read(dir.path()), Ok(None));
        recipe(5000).claim(dir.path()).unwrap();
        assert_eq!(Recipe::read(dir.path()), Ok(Some(recipe(5000))));
        recipe(5000).claim(dir.path()).unwrap();

        let refused = recipe(2500).claim(dir.path()).unwrap_err();
        assert!(
            refused.contains("played with nodes 5000; this run would play with nodes 2500"),
            "{refused}"
        );
        assert_eq!(Recipe::read(dir.path()), Ok(Some(recipe(5000))));
    }
}
