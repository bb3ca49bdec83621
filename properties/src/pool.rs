//! Work spread over threads with the results in input order, so what is
//! printed or compared is the same whatever the number of threads. Each item is
//! a whole run with its own world, so runs on threads give the bytes they give
//! alone (issue 19 section 2 tests it).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The machine's cores (2 if unknown): the default `--jobs`.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// `f` of every item, on up to `jobs` threads, in the items' order.
pub fn map_ordered<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                *slots[i].lock().expect("no thread panicked holding a slot") = Some(r);
            });
        }
    });
    slots.into_iter().map(|m| m.into_inner().expect("slot").expect("every item ran")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_input_order_on_any_number_of_threads() {
        let items: Vec<u64> = (0..50).collect();
        let want: Vec<u64> = items.iter().map(|x| x * x).collect();
        for jobs in [1, 2, 7, 64] {
            assert_eq!(map_ordered(&items, jobs, |x| x * x), want, "jobs {jobs}");
        }
        assert!(map_ordered(&[] as &[u64], 4, |x| *x).is_empty());
    }
}
