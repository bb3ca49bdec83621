//! A deterministic simulated site: a meter, solar, and (from a seeded time, or at once) a
//! battery. Its values are a function of the seed and of the whole seconds since sim start
//! only: [`Site::advance_to`] steps second by second, so how often it is called does not change
//! what it shows.
//!
//! Sign conventions: `grid_w` > 0 imports, `pv_w` >= 0 produces, `battery_w` > 0 charges,
//! `battery_soc` in permille. `grid_w = load - pv + battery_w` (the load is hidden).
//!
//! The site's rules (its unit tests check each from the values alone):
//! * solar follows the sun: nothing outside 06:00-18:00, else a triangle peaking at
//!   `PV_PEAK_W` at noon, times a cloud factor of 40-100 % held for each whole minute,
//!   plus a flicker of at most 20 W a second (never below 0);
//! * the hidden load is 300 W plus up to 2 499 W held for each 30 s, plus up to 20 W a
//!   second;
//! * the battery serves the house: it takes what solar has beyond the load and gives what
//!   the load needs beyond solar (so the grid reads 0), unless held at a setpoint; never
//!   beyond `BATTERY_POWER_MAX_W`, never more than the room left or the energy stored;
//! * the energy stored moves each second by the battery's power of the second before,
//!   starting half full; `battery_soc` is it in permille of `BATTERY_CAPACITY_WS`;
//! * per-second noise comes from splitmix64 (its published test vector holds).
//!
//! The source table is the list of fields the site has; its revision `src_rev` starts at 1
//! and bumps each time the table changes (the battery being added).

use std::collections::BTreeMap;

use crate::consts::fields::{BATTERY_SOC, BATTERY_W, GRID_W, PV_W};

/// One field of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldInfo {
    pub fid: u32,
    pub name: String,
    pub unit: String,
}

/// The source table of one revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub src_rev: u64,
    pub fields: Vec<FieldInfo>,
}

impl Table {
    /// The field names in table order.
    pub fn names(&self) -> Vec<String> {
        self.fields.iter().map(|f| f.name.clone()).collect()
    }
}

fn field((fid, name, unit): (u32, &str, &str)) -> FieldInfo {
    FieldInfo { fid, name: name.to_string(), unit: unit.to_string() }
}

/// splitmix64: a fixed, seedable hash for per-second noise.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Solar without clouds at time of day `tod` (s): from 06:00 to 18:00 a triangle
/// peaking at `PV_PEAK_W` at noon.
fn sun_w(tod: u64) -> i64 {
    if !(21_600..64_800).contains(&tod) {
        return 0;
    }
    let x = tod - 21_600; // 0 .. 43_200
    let tri = if x < 21_600 { x } else { 43_200 - x } as i64; // 0 .. 21_600
    PV_PEAK_W * tri / 21_600
}

/// The cloud factor of second `s`, percent: 40..=100, one draw a minute.
fn cloud_pct(seed: u64, s: u64) -> i64 {
    40 + (mix(seed ^ mix(s / 60)) % 61) as i64
}

/// Solar's flicker in second `s`: -20..=20 W, one draw a second.
fn flicker_w(seed: u64, s: u64) -> i64 {
    (mix(seed.wrapping_add(s)) % 41) as i64 - 20
}

/// Solar in second `s` at time of day `tod`: the sun under the minute's cloud, with
/// the second's flicker while the sun is up, never below 0.
fn solar_w(seed: u64, s: u64, tod: u64) -> i64 {
    let sun = sun_w(tod);
    let flicker = if sun > 0 { flicker_w(seed, s) } else { 0 };
    (sun * cloud_pct(seed, s) / 100 + flicker).max(0)
}

/// What the battery takes (> 0) or gives, wanting `want_w` with `stored_ws` in it:
/// never more than the room left, never more than it holds.
fn charge_w(want_w: i64, stored_ws: i64) -> i64 {
    if want_w > 0 {
        want_w.min(BATTERY_CAPACITY_WS - stored_ws)
    } else {
        want_w.max(-stored_ws)
    }
}

/// The hidden load in second `s`: 300 W, plus 0..2 500 W drawn each 30 s, plus
/// 0..=20 W each second.
fn load_w(seed: u64, s: u64) -> i64 {
    300 + (mix(seed ^ 0xa5a5 ^ mix(s / 30)) % 2_500) as i64 + (mix(s ^ seed) % 21) as i64
}

/// Battery capacity in watt-seconds (10 kWh). Chosen here.
const BATTERY_CAPACITY_WS: i64 = 10_000 * 3_600;
/// Battery power limit. Chosen here.
const BATTERY_POWER_MAX_W: i64 = 5_000;
/// PV peak. Chosen here.
const PV_PEAK_W: i64 = 6_000;
/// Seconds per simulated day.
const DAY_S: u64 = 86_400;

/// The simulated site.
#[derive(Debug, Clone)]
pub struct Site {
    seed: u64,
    /// Whole seconds stepped so far.
    second: u64,
    table: Table,
    /// When the battery joins (sim ms), if it is not there from the start.
    battery_at_ms: Option<u64>,
    has_battery: bool,
    /// Energy stored, watt-seconds.
    stored_ws: i64,
    /// A `battery.hold` setpoint.
    hold_w: Option<i64>,
    values: BTreeMap<String, i64>,
    /// Time of day at second 0, seconds.
    day_offset_s: u64,
}

impl Site {
    /// A site for `seed`: half the seeds have a battery from the start, the others get one
    /// between 60 s and 600 s; the time of day at start is seeded too.
    pub fn new(seed: u64) -> Site {
        let r = mix(seed);
        let battery_from_start = r & 1 == 0;
        let battery_at_ms = if battery_from_start { None } else { Some(60_000 + (r >> 8) % 540_001) };
        let day_offset_s = mix(seed ^ 0x5eed) % DAY_S;
        let mut site = Site {
            seed,
            second: 0,
            table: Table { src_rev: 1, fields: vec![field(GRID_W), field(PV_W)] },
            battery_at_ms,
            has_battery: false,
            stored_ws: BATTERY_CAPACITY_WS / 2,
            hold_w: None,
            values: BTreeMap::new(),
            day_offset_s,
        };
        if battery_from_start {
            site.has_battery = true;
            site.table.fields.extend([field(BATTERY_W), field(BATTERY_SOC)]);
        }
        site.compute();
        site
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// When the seeded battery joins, if it is not there from the start.
    pub fn battery_at_ms(&self) -> Option<u64> {
        self.battery_at_ms
    }

    /// Whether the site has a battery now.
    pub fn has_battery(&self) -> bool {
        self.has_battery
    }

    /// The current table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The table's revision.
    pub fn src_rev(&self) -> u64 {
        self.table.src_rev
    }

    /// Current values by name (only the table's fields).
    pub fn values(&self) -> &BTreeMap<String, i64> {
        &self.values
    }

    /// Current values by field id.
    pub fn values_by_fid(&self) -> BTreeMap<u32, i64> {
        self.table.fields.iter().map(|f| (f.fid, self.values[&f.name])).collect()
    }

    /// Add the battery now (if there is none): the table changes, `src_rev` bumps.
    pub fn add_battery(&mut self) {
        if self.has_battery {
            return;
        }
        self.has_battery = true;
        self.battery_at_ms = None;
        self.table.src_rev += 1;
        self.table.fields.extend([field(BATTERY_W), field(BATTERY_SOC)]);
        self.compute();
    }

    /// Hold the battery at a setpoint (`battery.hold`); false if there is no battery.
    pub fn hold_battery(&mut self, setpoint_w: i64) -> bool {
        if !self.has_battery {
            return false;
        }
        self.hold_w = Some(setpoint_w.clamp(-BATTERY_POWER_MAX_W, BATTERY_POWER_MAX_W));
        self.compute();
        true
    }

    /// Step to `now_ms` (whole seconds). Never goes back.
    pub fn advance_to(&mut self, now_ms: u64) {
        let target = now_ms / 1_000;
        while self.second < target {
            self.second += 1;
            if let Some(at) = self.battery_at_ms {
                if self.second * 1_000 >= at {
                    self.add_battery();
                }
            }
            if self.has_battery {
                let w = self.values.get(BATTERY_W.1).copied().unwrap_or(0);
                self.stored_ws = (self.stored_ws + w).clamp(0, BATTERY_CAPACITY_WS);
            }
            self.compute();
        }
    }

    fn compute(&mut self) {
        let s = self.second;
        let pv = solar_w(self.seed, s, (self.day_offset_s + s) % DAY_S);
        let load = load_w(self.seed, s);
        let mut values = BTreeMap::new();
        let mut battery = 0;
        if self.has_battery {
            let want = self.hold_w.unwrap_or(pv - load).clamp(-BATTERY_POWER_MAX_W, BATTERY_POWER_MAX_W);
            battery = charge_w(want, self.stored_ws);
            values.insert(BATTERY_W.1.to_string(), battery);
            values.insert(BATTERY_SOC.1.to_string(), self.stored_ws * 1_000 / BATTERY_CAPACITY_WS);
        }
        values.insert(GRID_W.1.to_string(), load - pv + battery);
        values.insert(PV_W.1.to_string(), pv);
        debug_assert_eq!(values.len(), self.table.fields.len());
        self.values = values;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(seed: u64, steps: &[u64]) -> Vec<(u64, BTreeMap<String, i64>)> {
        let mut s = Site::new(seed);
        steps
            .iter()
            .map(|&t| {
                s.advance_to(t);
                (s.src_rev(), s.values().clone())
            })
            .collect()
    }

    #[test]
    fn deterministic_per_seed_and_independent_of_call_pattern() {
        let a = trace(7, &[1_000, 2_000, 500_000, 700_000]);
        let b = trace(7, &[1_000, 2_000, 500_000, 700_000]);
        assert_eq!(a, b);
        // Calling every second gives the same state at the end as jumping.
        let fine: Vec<u64> = (1..=700).map(|s| s * 1_000).collect();
        assert_eq!(trace(7, &fine).last(), a.last());
        // Another seed gives other values.
        assert_ne!(trace(8, &[1_000, 2_000, 500_000, 700_000]), a);
    }

    #[test]
    fn values_change_over_time() {
        let steps: Vec<u64> = (1..=120).map(|s| s * 1_000).collect();
        let t = trace(3, &steps);
        let distinct: std::collections::BTreeSet<_> = t.iter().map(|(_, v)| v.clone()).collect();
        assert!(distinct.len() > 10, "{}", distinct.len());
    }

    #[test]
    fn seeded_battery_bumps_src_rev() {
        let seed = (0..100).find(|&s| Site::new(s).battery_at_ms().is_some()).unwrap();
        let mut s = Site::new(seed);
        let at = s.battery_at_ms().unwrap();
        assert_eq!(s.src_rev(), 1);
        assert_eq!(s.table().names(), vec!["grid_w", "pv_w"]);
        s.advance_to(at - 1_000);
        assert_eq!(s.src_rev(), 1);
        s.advance_to(at + 1_000);
        assert_eq!(s.src_rev(), 2);
        assert_eq!(s.table().names(), vec!["grid_w", "pv_w", "battery_w", "battery_soc"]);
        assert_eq!(s.values().len(), 4);
        let seed_full = (0..100).find(|&s| Site::new(s).battery_at_ms().is_none()).unwrap();
        assert_eq!(Site::new(seed_full).values().len(), 4);
    }

    /// splitmix64's published outputs for state 0 (the generator's reference, as used to
    /// seed xoshiro): each output is `mix` of the state advanced by the golden gamma.
    #[test]
    fn mix_is_splitmix64() {
        let gamma = 0x9e37_79b9_7f4a_7c15u64;
        let want = [0xe220_a839_7b1d_cdaf, 0x6e78_9e6a_a1b9_65f4, 0x06c4_5d18_8009_454f, 0xf88b_b8a8_724c_81ec];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(mix(gamma.wrapping_mul(k as u64)), *w, "output {k}");
        }
    }

    /// The sun's envelope written from the module docs: 0 outside 06:00-18:00, a
    /// triangle to `PV_PEAK_W` at noon.
    fn daylight(tod: u64) -> i64 {
        let (rise, noon, set) = (6 * 3_600, 12 * 3_600, 18 * 3_600);
        match tod {
            t if t < rise || t >= set => 0,
            t if t < noon => PV_PEAK_W * (t - rise) as i64 / (noon - rise) as i64,
            t => PV_PEAK_W * (set - t) as i64 / (set - noon) as i64,
        }
    }

    /// One value per second of a whole day (stepping second by second), with the
    /// time of day of each.
    fn day(seed: u64, hold: Option<i64>) -> Vec<(u64, BTreeMap<String, i64>)> {
        let mut s = Site::new(seed);
        if let Some(h) = hold {
            assert!(s.hold_battery(h));
        }
        let tod0 = s.day_offset_s;
        (0..DAY_S)
            .map(|sec| {
                s.advance_to(sec * 1_000 + 999);
                assert_eq!(s.second, sec, "advance_to steps whole seconds");
                ((tod0 + sec) % DAY_S, s.values().clone())
            })
            .collect()
    }

    /// Seeds with a battery from the start: the first one and a large one.
    fn with_battery(n: usize) -> Vec<u64> {
        (0..).map(|k| if k % 2 == 0 { k } else { mix(k) }).filter(|&s| Site::new(s).has_battery()).take(n).collect()
    }

    #[test]
    fn solar_follows_the_sun_under_a_cloud_held_a_minute() {
        for seed in with_battery(2) {
            let d = day(seed, None);
            let (mut lit, mut clouds, mut widest) = (0, std::collections::BTreeSet::new(), 0f64);
            for minute in d.chunks(60) {
                // The cloud factors (percent) every second of this minute allows; they must
                // share one.
                let (mut lo, mut hi) = (40i64, 100i64);
                for (tod, v) in minute {
                    let (sun, pv) = (daylight(*tod), v["pv_w"]);
                    assert!(pv >= 0 && pv <= sun + 20, "seed {seed} tod {tod}: pv {pv} under sun {sun}");
                    if sun == 0 {
                        assert_eq!(pv, 0, "seed {seed} tod {tod}: solar at night");
                        continue;
                    }
                    if sun < 2_000 {
                        continue; // integer rounding dominates near dawn and dusk
                    }
                    lit += 1;
                    lo = lo.max(((pv - 21) * 100).div_euclid(sun));
                    hi = hi.min(((pv + 21) * 100).div_euclid(sun) + 1);
                }
                assert!(lo <= hi, "seed {seed}: no one cloud factor fits the minute at {}", minute[0].0);
                if lo > 40 || hi < 100 {
                    clouds.insert(lo);
                }
                // The flicker: what the minute's one cloud factor leaves, second by second.
                let bright: Vec<(f64, f64)> = minute.iter().map(|(t, v)| (daylight(*t) as f64, v["pv_w"] as f64)).filter(|(sun, _)| *sun >= 2_000.0).collect();
                if bright.len() == 60 {
                    let c = bright.iter().map(|(sun, pv)| pv / sun).sum::<f64>() / 60.0;
                    let left: Vec<f64> = bright.iter().map(|(sun, pv)| pv - c * sun).collect();
                    let spread = left.iter().cloned().fold(f64::MIN, f64::max) - left.iter().cloned().fold(f64::MAX, f64::min);
                    widest = widest.max(spread);
                }
            }
            assert!(lit > 3_600, "seed {seed}: {lit} bright seconds");
            assert!(clouds.len() > 20, "seed {seed}: the cloud took {} values in a day", clouds.len());
            assert!((30.0..=42.0).contains(&widest), "seed {seed}: the flicker spread {widest:.1} W in its widest minute");
        }
    }

    #[test]
    fn the_hidden_load_stays_in_its_range_and_moves_each_30_s() {
        for seed in with_battery(2) {
            let d = day(seed, None);
            let load: Vec<i64> = d.iter().map(|(_, v)| v["grid_w"] - v["battery_w"] + v["pv_w"]).collect();
            assert!(load.iter().all(|l| (300..=2_819).contains(l)), "seed {seed}: load out of range");
            let mut blocks = 0;
            for (k, block) in load.chunks(30).enumerate() {
                let (min, max) = (block.iter().min().unwrap(), block.iter().max().unwrap());
                assert!(max - min <= 20, "seed {seed}: load moved {} W within block {k}", max - min);
                blocks += 1;
            }
            let distinct: std::collections::BTreeSet<i64> = load.iter().step_by(30).map(|l| l / 100).collect();
            assert!(distinct.len() > 10, "seed {seed}: {blocks} blocks of load, {} levels", distinct.len());
        }
    }

    #[test]
    fn the_battery_serves_the_house_within_its_power_and_energy() {
        for (seed, hold) in with_battery(2).into_iter().flat_map(|s| [(s, None), (s, Some(7_000)), (s, Some(-2_500))]) {
            let d = day(seed, hold);
            let mut stored = BATTERY_CAPACITY_WS / 2;
            let mut prev = 0;
            for (k, (_, v)) in d.iter().enumerate() {
                if k > 0 {
                    stored = (stored + prev).clamp(0, BATTERY_CAPACITY_WS);
                }
                let (b, grid, pv) = (v["battery_w"], v["grid_w"], v["pv_w"]);
                assert_eq!(v["battery_soc"], stored * 1_000 / BATTERY_CAPACITY_WS, "seed {seed} second {k}: soc");
                assert!(b.abs() <= BATTERY_POWER_MAX_W, "seed {seed} second {k}: battery {b}");
                assert!(b <= BATTERY_CAPACITY_WS - stored && -b <= stored, "seed {seed} second {k}: battery {b} with {stored} stored");
                let load = grid - b + pv;
                let want = hold.map_or(pv - load, |h| h.clamp(-BATTERY_POWER_MAX_W, BATTERY_POWER_MAX_W));
                let free = BATTERY_POWER_MAX_W.min(BATTERY_CAPACITY_WS - stored).min(stored);
                if want.abs() <= free {
                    assert_eq!(b, want, "seed {seed} second {k}: battery {b}, wanted {want}");
                }
                prev = b;
            }
            if hold.is_some() {
                let ends: Vec<i64> = d.iter().map(|(_, v)| v["battery_soc"]).collect();
                assert!(ends.contains(&0) || ends.contains(&1_000), "seed {seed}: a held battery reaches an end in a day");
            }
        }
    }

    #[test]
    fn values_by_fid_keys_each_value_by_its_registry_id() {
        for seed in [with_battery(1)[0], (0..).find(|&s| !Site::new(s).has_battery()).unwrap()] {
            let mut s = Site::new(seed);
            s.advance_to(3_600_000);
            let by_fid = s.values_by_fid();
            assert_eq!(by_fid.len(), s.table().fields.len());
            for (fid, name, _) in [GRID_W, PV_W, BATTERY_W, BATTERY_SOC] {
                assert_eq!(by_fid.get(&fid), s.values().get(name), "seed {seed}: {name}");
            }
            assert_eq!(s.seed(), seed);
        }
    }

    #[test]
    fn grid_balances_and_hold_works() {
        let seed = (0..100).find(|&s| Site::new(s).has_battery()).unwrap();
        let mut s = Site::new(seed);
        assert!(s.hold_battery(1_234));
        s.advance_to(10_000);
        assert_eq!(s.values()["battery_w"], 1_234);
        let seed_nb = (0..100).find(|&s| !Site::new(s).has_battery()).unwrap();
        assert!(!Site::new(seed_nb).hold_battery(1));
    }
}
