//! `config show [PEER]`: what a `check` of PEER would use before any flag
//! is given — each setting's value, the layer it came from, the lower
//! layers it won over — resolved by the same code `check` resolves with,
//! then the config file's peer sections.

use super::options::run_top;
use crate::config::{ConfigFile, FILE_NAMES};
use crate::error::AppError;
use crate::settings::{render, Profiles, ShowLine};
use a2a_conform_report::exit;

pub(super) fn config_show(
    config: Option<&ConfigFile>,
    peer: Option<&str>,
) -> Result<i32, AppError> {
    let effective = crate::config::effective(config)?;
    let layers = match (config, peer) {
        (Some(config), Some(peer)) => config.section_layers(peer, &mut Profiles::default())?,
        _ => Vec::new(),
    };
    let sources = &effective.sources;
    let resolved = run_top(&effective.args.run, sources)?.resolve(&layers, &[]);
    let mut lines: Vec<ShowLine> = Vec::new();
    for (long, values) in &effective.values {
        match resolved.show_lines(long, sources) {
            Some(resolved) => lines.extend(resolved),
            None => lines.push(ShowLine::from_values(long, values, sources)),
        }
    }
    let file = match config {
        Some(c) => c.path.display().to_string(),
        None => format!(
            "none ({} or {} walking up from the working directory, or --config FILE)",
            FILE_NAMES[0], FILE_NAMES[1]
        ),
    };
    let section = |name: &str| {
        peer.is_none_or(|p| config.and_then(|c| c.section(p)).map(|(n, _)| n) == Some(name))
    };
    let sections: Vec<(String, Vec<String>)> = config
        .map(|c| {
            c.peers
                .iter()
                .filter(|(name, _)| section(name))
                .map(|(name, settings)| (name.clone(), settings.describe()))
                .collect()
        })
        .unwrap_or_default();
    print!("{}", render(&file, &lines, &sections));
    if let Some(peer) = peer.filter(|_| sections.is_empty()) {
        println!("peer {peer}: no section of the config file names it");
    }
    Ok(exit::OK)
}
