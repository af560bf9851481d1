//! The small text files datagen keeps beside the games (`selfplay-time`, `selfplay-recipe`):
//! one `key value` pair per line, each key once, so that scripts read them with a split.

use std::path::Path;

use wholefile::write_whole_file;

/// The pairs of the file at `path`, in order; `Ok(None)` where there is no file.
pub fn read(path: &Path) -> Result<Option<Vec<(String, String)>>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    parse(&text).map(Some).ok_or_else(|| {
        format!(
            "{}: expected `key value` lines, each key once",
            path.display()
        )
    })
}

fn parse(text: &str) -> Option<Vec<(String, String)>> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let (key, value) = line.split_once(' ')?;
        if key.is_empty() || pairs.iter().any(|(k, _)| k == key) {
            return None;
        }
        pairs.push((key.to_owned(), value.trim().to_owned()));
    }
    Some(pairs)
}

/// Writes `pairs` whole (a killed run leaves the old file, never half of one). A key must be
/// one word and a value one line without spaces at its ends, or the file would not read back
/// as written.
pub fn write<K: AsRef<str>, V: AsRef<str>>(path: &Path, pairs: &[(K, V)]) -> std::io::Result<()> {
    let mut text = String::new();
    for (key, value) in pairs {
        let (key, value) = (key.as_ref(), value.as_ref());
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(invalid(format!("the key {key:?} is not one word")));
        }
        if value.contains('\n') || value.trim() != value {
            return Err(invalid(format!(
                "the value {value:?} of {key} would not read back"
            )));
        }
        text.push_str(&format!("{key} {value}\n"));
    }
    write_whole_file(path, text.as_bytes())
}

fn invalid(message: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_read_back_and_malformed_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        assert_eq!(read(&path), Ok(None));
        write(&path, &[("a", "1"), ("openings", "book x.epd")]).unwrap();
        assert_eq!(
            read(&path),
            Ok(Some(vec![
                ("a".into(), "1".into()),
                ("openings".into(), "book x.epd".into())
            ]))
        );
        for text in ["a\n", "a 1\na 2\n", " 1\n"] {
            std::fs::write(&path, text).unwrap();
            assert!(read(&path).is_err(), "{text:?}");
        }
        for (key, value) in [("a b", "1"), ("", "1"), ("a", "1\n2"), ("a", " 1")] {
            assert!(write(&path, &[(key, value)]).is_err(), "{key:?} {value:?}");
        }
    }
}
