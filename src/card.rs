//! Agent card discovery and parsing: version detection, endpoint choice and the
//! declarations a run will judge.
