//! What a directory's games were played with (net, nodes per move, openings, adjudication),
//! kept in `selfplay-recipe` beside them. A run that adds games must play to the same recipe,
//! so one directory never mixes two (games at 2500 and 5000 nodes, say), and a net's lineage
//! reads what its data were from here rather than from memory.

use std::path::Path;

use crate::keyfile;

pub const FILE_NAME: &str = "selfplay-recipe";

/// The settings that shape the games, each as the text the file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipe {
    pairs: Vec<(String, String)>,
}

/// What `Recipe::claim` found in the directory.
#[derive(Debug, PartialEq, Eq)]
pub enum Claim {
    /// The directory's games are of this recipe (or it has none yet).
    Same,
    /// Games from before datagen kept recipes, now taken to be of this one.
    Adopted,
}

impl Recipe {
    /// `pairs`: (key, value) with one-word keys and one-line values.
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

    /// Makes this the recipe of `dir`, whose files hold `games` games. Refused where those
    /// games are of another recipe: one that differs in a setting both name (a setting only
    /// one of them names, from another version of datagen, is not compared). Games without a
    /// recipe, from before datagen kept one, are adopted. The file is then (re)written.
    pub fn claim(&self, dir: &Path, games: u64) -> Result<Claim, String> {
        let path = dir.join(FILE_NAME);
        let claim = match (Self::read(dir)?, games) {
            (None, 0) | (Some(_), 0) => Claim::Same,
            (None, _) => Claim::Adopted,
            (Some(held), _) => {
                let differing: Vec<&str> = held
                    .pairs
                    .iter()
                    .map(|(key, _)| key.as_str())
                    .filter(|key| self.get(key).is_some_and(|v| Some(v) != held.get(key)))
                    .collect();
                if !differing.is_empty() {
                    let side = |recipe: &Recipe| {
                        differing
                            .iter()
                            .map(|key| format!("{key} {}", recipe.get(key).unwrap_or_default()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    return Err(format!(
                        "{} holds {games} games played with {}; this run would play with {}: \
                         give another --out",
                        dir.display(),
                        side(&held),
                        side(self)
                    ));
                }
                Claim::Same
            }
        };
        keyfile::write(&path, &self.pairs).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(claim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(nodes: u64) -> Recipe {
        Recipe::new(vec![
            ("net", "gen6.nnue sha256 0123456789ab".into()),
            ("nodes", nodes.to_string()),
            ("openings", "start position, 8-9 random plies".into()),
        ])
    }

    #[test]
    fn a_directory_of_games_keeps_one_recipe() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Recipe::read(dir.path()), Ok(None));
        assert_eq!(recipe(5000).claim(dir.path(), 0), Ok(Claim::Same));
        assert_eq!(Recipe::read(dir.path()), Ok(Some(recipe(5000))));
        assert_eq!(recipe(5000).claim(dir.path(), 10), Ok(Claim::Same));

        let refused = recipe(2500).claim(dir.path(), 10).unwrap_err();
        assert!(
            refused.contains(
                "holds 10 games played with nodes 5000; this run would play with nodes 2500"
            ),
            "{refused}"
        );
        assert_eq!(Recipe::read(dir.path()), Ok(Some(recipe(5000))));

        // With its games gone, the directory takes any recipe.
        assert_eq!(recipe(2500).claim(dir.path(), 0), Ok(Claim::Same));
        assert_eq!(Recipe::read(dir.path()), Ok(Some(recipe(2500))));
    }

    #[test]
    fn games_without_a_recipe_are_adopted_and_new_settings_are_added() {
        let dir = tempfile::tempdir().unwrap();
        let older = Recipe::new(vec![("nodes", "5000".into())]);
        assert_eq!(older.claim(dir.path(), 10), Ok(Claim::Adopted));
        // A later version that names more settings agrees on the one both name.
        assert_eq!(recipe(5000).claim(dir.path(), 10), Ok(Claim::Same));
        assert_eq!(Recipe::read(dir.path()), Ok(Some(recipe(5000))));
    }
}
