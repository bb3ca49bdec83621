//! The rule table (issue 14 section 1): every law it names exists, every law
//! belongs to some rule, and docs/rules.md is the table's current output.

use ftw_properties::rules;

#[test]
fn every_law_named_by_a_rule_exists() {
    for rule in rules::RULES {
        assert!(!rule.laws.is_empty(), "rule without a law: {}", rule.rule);
        for law in rule.laws {
            assert!(ftw_sim::scenario::law(law).is_some(), "rule {:?} names law {law:?}, which no scenario or reference judges", rule.rule);
        }
    }
}

#[test]
fn every_law_checks_a_rule() {
    for law in ftw_sim::scenario::all_laws() {
        assert!(rules::RULES.iter().any(|r| r.laws.contains(&law.name)), "law {:?} checks no rule of the table (properties/src/rules.rs)", law.name);
    }
}

#[test]
fn docs_rules_md_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/rules.md");
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(have == rules::markdown(), "docs/rules.md is stale: run `cargo sim rules > docs/rules.md`");
}
