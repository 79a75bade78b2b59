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
    options.from_str(text).map_err(|e| RonError {
        line: e.span.start.line,
        column: e.span.start.col,
        message: e.code.to_string(),
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
