//! What the journal records of the phone's app life (`ftw_phone::app::AppLife`,
//! driven by `drive::app::phone::PhoneApp` in a networked run and by the
//! `life-clock` scenario's bench without one): each thing the app lived through
//! and everything the model asked of the transport for it. The lockstep
//! reference is `ftw_properties::reference::life`.

use ftw_phone::app::LifeAsk;

/// One app-life event and the model's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifeStep {
    pub event: LifeEvent,
    /// What the model asked, in its order.
    pub asks: Vec<LifeAsk>,
}

/// What the app lived through (times are the model's clock, in ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LifeEvent {
    /// `background(now)`: the app is hidden.
    Background { now_ms: u64 },
    /// `foreground(now)`: the app is in view again.
    Foreground { now_ms: u64 },
    /// `AppLife::relaunch(now, ..)`: the app is killed and started again.
    Relaunch { now_ms: u64 },
    /// `clock_jump(by)`: the phone slept, its clock moved `by_ms` at once.
    ClockJump { by_ms: u64 },
}
