//! The dashboard's own pages, in the report crate's page shell
//! (`a2a_conform_report::format::html::page`): the fleet grid ([`fleet`])
//! and a peer's page ([`peer`]), which shows a stored report through the
//! same HTML renderer as `check --html`.

pub(crate) mod fleet;
pub(crate) mod peer;
