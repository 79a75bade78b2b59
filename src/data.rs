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
