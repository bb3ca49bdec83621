//! The world a scenario with no network runs its bench in (`race-clock`,
//! `life-clock`): the bench drives an IO-free model as the phone's one task,
//! in a world of the run's seed, so its clock, trace and journal are the run's.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use crate::world::host::{addr, PHONE};
use crate::world::topology::{world_for, RunSpec};
use crate::world::RunOutcome;

/// Run `workload` as the phone's task; the run's outcome and what it found.
pub fn run<T: Default + Clone + 'static>(spec: &RunSpec, workload: fn(&RunSpec) -> T) -> (RunOutcome, T) {
    let mut world = world_for(spec, Duration::from_secs(60));
    let found = Rc::new(RefCell::new(T::default()));
    let (f, sp) = (found.clone(), spec.clone());
    world.client(PHONE, addr::PHONE, async move {
        *f.borrow_mut() = workload(&sp);
        Ok(())
    });
    let outcome = world.run();
    let found = found.borrow().clone();
    (outcome, found)
}
