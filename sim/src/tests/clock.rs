//! Wall clocks: a fixed epoch plus elapsed time, with per-host jumps.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use crate::time::{self, EPOCH_UNIX_MS};
use crate::{RunSeed, World, WorldConfig};

#[test]
fn a_jump_moves_one_hosts_wall_clock_only() {
    let mut world = World::new(WorldConfig::new(RunSeed(1)));
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    world.client("phone", "10.0.1.2".parse().unwrap(), async move {
        time::sleep(Duration::from_secs(10)).await;
        s.borrow_mut().push(("phone", time::wall_since_unix("phone"), time::now()));
        time::jump_wall("phone", Duration::from_secs(24 * 3600));
        s.borrow_mut().push(("phone", time::wall_since_unix("phone"), time::now()));
        s.borrow_mut().push(("box", time::wall_since_unix("box"), time::now()));
        Ok(())
    });
    let out = world.run();
    assert!(out.result.is_ok(), "{:?}", out.result);
    let seen = seen.borrow();
    let epoch = Duration::from_millis(EPOCH_UNIX_MS);
    assert_eq!(seen[0].1, epoch + Duration::from_secs(10));
    assert_eq!(seen[1].1, epoch + Duration::from_secs(10 + 24 * 3600), "the phone's wall clock jumped a day");
    assert_eq!(seen[1].2, Duration::from_secs(10), "its monotonic clock did not");
    assert_eq!(seen[2].1, epoch + Duration::from_secs(10), "the box's wall clock did not move");
    assert!(out.trace.events().iter().any(|e| e.kind == "clock.jump" && e.host == "phone"));
    // Ten idle seconds took a handful of steps, not ten thousand.
    assert!(out.steps < 10, "{} steps", out.steps);
}
