//! Reading the crate's data files (RON): one place that knows how ron reports a position, so
//! each layer's own error can name the file, line and column.

use serde::de::DeserializeOwned;

/// Where and why a RON text could not be read.
pub(crate) struct RonError {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
}

/// Parses RON; with `implicit_some`, optional fields may be written without `Some(...)`.
pub(crate) fn from_ron<T: DeserializeOwned>(
    text: &str,
    implicit_some: bool,
) -> Result<T, RonError> {
    let mut options = ron::Options::default();
    if implicit_some {
        options = options.with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    }
    options.from_str(text).map_err(|e| {
        let (line, column) = (e.span.start.line, e.span.start.col);
        let message = e.code.to_string();
        let message = if message.contains("out of bounds") || message.contains("identifier") {
            explain_number(text, line, column).unwrap_or(message)
        } else {
            message
        };
        RonError {
            line,
            column,
            message,
        }
    })
}

/// For a number ron could not take (a negative or too large value in a field of whole
/// numbers), the field's name, the value and the range, read from the text at the error's
/// position (1-based line and column); `None` if the text there is not `field: number`.
fn explain_number(text: &str, line: usize, column: usize) -> Option<String> {
    let row = text.lines().nth(line.checked_sub(1)?)?;
    let at = row
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(row.len(), |(i, _)| i);
    // Back to the start of the number (a sign, digits), then the `field:` before it.
    let before = &row[..at];
    let start = before
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.')
        .len();
    let value: String = row[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.' | '_'))
        .collect();
    let field_end = before[..start].trim_end().strip_suffix(':')?.trim_end();
    let field: String = field_end
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let digits = value.trim_start_matches(['-', '+']);
    let numeric = !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit() || c == '.');
    if field.is_empty() || !numeric {
        return None;
    }
    Some(if value.starts_with('-') {
        format!("field `{field}`: {value} is out of range: it must be a whole number, 0 or more")
    } else {
        format!("field `{field}`: {value} is out of range: it is too large for this field")
    })
}

/// The largest data file (flow, template library, Edgar level, layout, level document) read:
/// far beyond any real one (the biggest fixture is well under a megabyte), small enough that a
/// wrong path (a device, a disk image) fails at once instead of filling memory.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Reads a text file of at most [`MAX_FILE_BYTES`]. A bigger file (or an endless one such as
/// `/dev/zero`) is an error of kind `InvalidData` saying so, after reading no more than the
/// limit; so is text that is not UTF-8.
///
/// # Examples
/// ```
/// let path = std::env::temp_dir().join("levelplan-read-example.ron");
/// std::fs::write(&path, "(name: \"tiny\")").unwrap();
/// assert_eq!(levelplan::read_text_file(&path).unwrap(), "(name: \"tiny\")");
/// ```
pub fn read_text_file(path: impl AsRef<std::path::Path>) -> std::io::Result<String> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "the file is larger than {} MiB; files this big are refused",
                MAX_FILE_BYTES >> 20
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the file is not UTF-8 text",
        )
    })
}
