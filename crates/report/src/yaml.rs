//! Positioned errors for the tool's own YAML inputs (profiles, baselines):
//! `FILE:LINE:COL: message`, then the place. A leaf: the modules that read
//! YAML and the application error both use it.

/// A YAML file that does not parse: `FILE:LINE:COL: message`, then saphyr's
/// snippet of the place.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}\n{snippet}")]
pub struct YamlError {
    /// The file as named.
    pub file: String,
    /// Where the problem is (1-based).
    pub line: u64,
    /// Where the problem is (1-based).
    pub column: u64,
    /// What is wrong, without the place.
    pub message: String,
    snippet: String,
}

impl YamlError {
    /// Positions saphyr's error in `file` (1:1 when it names no place).
    pub fn new(file: &str, e: &serde_saphyr::Error) -> YamlError {
        let (line, column) = e
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((1, 1));
        let rendered = e.to_string().replace("<input>", file);
        let first = rendered.lines().next().unwrap_or("");
        let message = first
            .trim_start_matches("error: ")
            .split_once(": ")
            .map(|(_, m)| m)
            .unwrap_or(first)
            .to_string();
        // saphyr names a breached budget by its Rust value (`Nodes { nodes:
        // 250001 }`): say what it means to whoever wrote the file.
        let message = match message.strip_prefix("budget breached: ") {
            Some(what) => format!(
                "the file expands past the YAML reader's limits ({}): aliases \
                 repeated into a very large document are refused",
                budget_words(what)
            ),
            None => message,
        };
        YamlError {
            file: file.to_string(),
            line,
            column,
            message,
            snippet: rendered.lines().skip(1).collect::<Vec<_>>().join("\n"),
        }
    }
}

/// `Nodes { nodes: 250001 }` as `250001 nodes` (saphyr's budget, by name).
fn budget_words(what: &str) -> String {
    let inner = what
        .split_once('{')
        .and_then(|(_, rest)| rest.rsplit_once('}'))
        .map_or(what, |(inside, _)| inside);
    match inner.trim().split_once(':') {
        Some((name, count)) => format!("{} {}", count.trim(), name.trim().replace('_', " ")),
        None => inner.trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_breached_budget_reads_as_words_not_a_rust_value() {
        let mut text = String::from("a: &a [x,x,x,x,x,x,x,x,x]\n");
        for (n, prev) in ["b", "c", "d", "e", "f", "g", "h"]
            .iter()
            .zip(["a", "b", "c", "d", "e", "f", "g"])
        {
            let refs = vec![format!("*{prev}"); 9].join(",");
            text.push_str(&format!("{n}: &{n} [{refs}]\n"));
        }
        let e = serde_saphyr::from_str::<serde_json::Value>(&text).unwrap_err();
        let e = YamlError::new("bomb.yaml", &e);
        assert!(
            e.message.starts_with("the file expands past"),
            "{}",
            e.message
        );
        assert!(e.message.contains("(250001 nodes)"), "{}", e.message);
    }

    #[test]
    fn yaml_errors_are_positioned_in_the_named_file() {
        let e = serde_saphyr::from_str::<Vec<u32>>("- 1\n- two\n").unwrap_err();
        let yaml = YamlError::new("n.yaml", &e);
        assert_eq!((yaml.line, yaml.column), (2, 3));
        assert!(yaml.to_string().starts_with("n.yaml:2:3: "), "{yaml}");
    }
}
