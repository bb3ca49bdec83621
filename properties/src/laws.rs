//! Which scenario and law catch each bug switch (SPEC section 7: each switch
//! fails a law from random seeds within the default number of cases, and
//! passes with it off), derived from the scenarios' definitions
//! ([`ftw_sim::scenario::ScenarioDef::laws`]): a switch is registered where
//! the law it breaks is declared.

use ftw_sim::scenario::{self, SCENARIOS};
use ftw_sim::switch::Switch;

/// (switch, scenario, law that fails with it on), in scenario order.
pub fn switch_laws() -> Vec<(&'static str, &'static str, &'static str)> {
    scenario::switch_laws().into_iter().map(|(w, s, l)| (w.name(), s.name, l.name)).collect()
}

/// The first scenario and law that catch `switch`, if registered (a switch
/// may have more than one law).
pub fn law_of(switch: &str) -> Option<(&'static str, &'static str)> {
    switch_laws().into_iter().find(|(s, _, _)| *s == switch).map(|(_, sc, p)| (sc, p))
}

/// The scenarios to fuzz with these switches on: every scenario with a law for
/// one of them (in scenario order); empty when none is registered.
pub fn scenarios_for<'a>(switches: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    let on: Vec<Switch> = switches.into_iter().filter_map(|s| Switch::parse(s).ok()).collect();
    scenario::scenarios_for(&on).into_iter().map(|s| s.name).collect()
}

/// Every scenario's name, in order.
pub fn scenario_names() -> Vec<&'static str> {
    SCENARIOS.iter().map(|s| s.name).collect()
}
