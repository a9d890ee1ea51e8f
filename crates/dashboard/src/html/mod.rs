//! The HTML pages: one shell ([`page`]), one report renderer shared by
//! `check --html` and the dashboard's peer page ([`report`]), the stream
//! time axis ([`axis`]), and the dashboard's fleet grid and peer page
//! ([`fleet`], [`peer`]).

pub(crate) mod axis;
pub(crate) mod fleet;
pub(crate) mod page;
pub(crate) mod peer;
pub(crate) mod report;
