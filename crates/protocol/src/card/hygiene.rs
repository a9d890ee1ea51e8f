//! Card hygiene the spec asks for with SHOULD: warnings, never verdicts.
//! The card endpoint SHOULD send `Cache-Control` with `max-age` and an
//! `ETag` (v1 §8.6.1), so clients can cache the card and revalidate it.
//! (Required fields per version and unknown bindings are warned about where
//! the card is parsed, in `parse` and `interfaces`.)

/// Warnings about the card response's caching headers, given their values
/// (`None`: the header is absent).
pub fn cache_warnings(cache_control: Option<&str>, etag: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    match cache_control.map(str::trim) {
        None | Some("") => out.push(
            "the card response has no Cache-Control header (v1 §8.6.1: SHOULD send one with max-age)"
                .to_string(),
        ),
        Some(value) => {
            let has_max_age = value.split(',').any(|directive| {
                directive
                    .trim()
                    .to_ascii_lowercase()
                    .strip_prefix("max-age=")
                    .is_some_and(|n| n.trim().parse::<u64>().is_ok())
            });
            if !has_max_age {
                out.push(format!(
                    "the card response's Cache-Control `{}` has no max-age (v1 §8.6.1: SHOULD)",
                    crate::text::clip(value, 80)
                ));
            }
        }
    }
    if etag.is_none_or(|e| e.trim().is_empty()) {
        out.push(
            "the card response has no ETag header (v1 §8.6.1: SHOULD, for revalidation)"
                .to_string(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caching_headers_as_the_spec_asks_give_no_warning() {
        assert!(cache_warnings(Some("public, max-age=300"), Some("\"abc\"")).is_empty());
        assert!(cache_warnings(Some("MAX-AGE=0"), Some("W/\"x\"")).is_empty());
    }

    #[test]
    fn missing_or_incomplete_headers_are_warnings() {
        let both = cache_warnings(None, None);
        assert_eq!(both.len(), 2, "{both:?}");
        assert!(both[0].contains("no Cache-Control"));
        assert!(both[1].contains("no ETag"));
        let no_age = cache_warnings(Some("no-cache"), Some("\"e\""));
        assert_eq!(no_age.len(), 1);
        assert!(
            no_age[0].contains("`no-cache` has no max-age"),
            "{no_age:?}"
        );
        assert_eq!(cache_warnings(Some("max-age=abc"), Some("\"e\"")).len(), 1);
    }
}
