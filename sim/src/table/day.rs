//! A simulated day of the whole system at work (issue 18): the Go test phone
//! streaming from its box through the cloud's reactor fleet over QUIC for
//! `hours`, lane 0 at 1 Hz and a `live` beside each frame, the keep-alives, and
//! a network move (Wi-Fi to cellular and back) every hour, on the rig's
//! profile at 40 ms without loss. `ftwsim bench` times it (`streaming_day_wall_s`).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use ftw_phone::Transport;

use super::consts::BOX_READY_BOUND;
use super::probe::{box_ready, Probe, Via, What};
use super::profile::Profile;
use super::rig::{build, rig_tcp, RigSpec};
use super::runs::{plan_both, CONDS};
use crate::world::host::{addr, PHONE};
use crate::world::seed::RunSeed;
use crate::world::time;

/// What the day delivered.
#[derive(Clone, Debug, Default)]
pub struct Day {
    pub sim_s: f64,
    pub steps: u64,
    /// Lane-0 frames and lives the phone opened.
    pub frames: u64,
    pub lives: u64,
    /// Network moves, and the sessions the phone opened (1 when every move kept the session).
    pub moves: u64,
    pub sessions: u64,
}

const HOUR: Duration = Duration::from_secs(3600);

/// Stream for `hours` with a move at the end of each hour.
pub fn streaming_day(seed: RunSeed, hours: u32) -> Day {
    let pr = Profile::Rig;
    let spec = RigSpec { seed, plan: plan_both(CONDS[0], pr), box_transport: Transport::Quic, quic: pr.quic(), limit: HOUR * (hours + 1) };
    let (mut world, shared, (wifi, cell)) = build(&spec);
    let net = world.net.clone();
    let phone_tcp = rig_tcp(&spec.plan, spec.plan.phone.mtu);
    let out: Rc<RefCell<Day>> = Rc::default();
    let o = out.clone();
    world.client(PHONE, addr::PHONE, async move {
        let mut p = Probe::start(seed, phone_tcp, pr.quic()).await?;
        box_ready(&shared, BOX_READY_BOUND).await;
        let (via, dial) = (Via::Direct(Transport::Quic), p.dialer(true));
        let start = time::now();
        for h in 0..hours {
            if !p.session_open() && p.connect(&dial, &via).await {
                o.borrow_mut().sessions += 1;
            }
            p.run_until(start + HOUR * (h + 1), &via, |_| false).await;
            let to = if h % 2 == 0 { cell } else { wifi };
            net.borrow_mut().move_host(time::now(), addr::PHONE, to);
            o.borrow_mut().moves += 1;
            // The phone's next packet is the first on the new path.
            p.tap();
        }
        let mut o = o.borrow_mut();
        o.frames = p.log.iter().filter(|g| matches!(g.what, What::Lane0 { .. })).count() as u64;
        o.lives = p.log.iter().filter(|g| matches!(g.what, What::Live { .. })).count() as u64;
        Ok(())
    });
    let outcome = world.run();
    assert!(outcome.result.is_ok(), "streaming day failed: {:?}", outcome.result);
    let mut d = out.borrow().clone();
    d.sim_s = outcome.sim_elapsed.as_secs_f64();
    d.steps = outcome.steps;
    d
}
