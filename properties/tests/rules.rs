//! The rule table (issue 14 section 1): every law names a rule of the table,
//! every rule is checked by some law a run judges, and docs/rules.md is the
//! table's current output.

use ftw_properties::rules;
use ftw_sim::law::rules::RULES;

#[test]
fn every_rule_is_checked_by_a_judged_law() {
    for rule in RULES {
        assert!(!rules::laws_checking(rule).is_empty(), "rule without a law ({}): {}", rule.source, rule.words);
    }
}

#[test]
fn every_law_checks_a_rule_of_the_table() {
    for law in ftw_sim::scenario::all_laws() {
        assert!(!law.rules.is_empty(), "law {:?} checks no rule: name one with `.checks(..)` where it is declared", law.name);
        for rule in law.rules {
            assert!(RULES.contains(rule), "law {:?} checks a rule missing from RULES: {}", law.name, rule.words);
        }
    }
}

#[test]
fn rules_are_one_by_their_words() {
    for (i, a) in RULES.iter().enumerate() {
        assert!(RULES[i + 1..].iter().all(|b| a.words != b.words), "rule written twice: {}", a.words);
    }
}

#[test]
fn docs_rules_md_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/rules.md");
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(have == rules::markdown(), "docs/rules.md is stale: run `cargo sim rules > docs/rules.md`");
}
