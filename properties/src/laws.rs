//! Which scenario and property catch each bug switch (SPEC section 7: each
//! switch fails a property from random seeds within the default number of
//! cases, and passes with it off). The one place to register a new pair.

/// (switch, scenario, property that fails with it on).
pub const SWITCH_LAWS: &[(&str, &str, &str)] = &[
    ("no-routing", "fleet-migrate", "same-connection"),
    ("forward-long-headers", "fleet-migrate", "long-headers-stay"),
    ("claim-per-path-report", "fleet-migrate", "one-pin-per-move"),
    ("forward-reference", "fleet-migrate", "owner-reads-what-was-sent"),
];
