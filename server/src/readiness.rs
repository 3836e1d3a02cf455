//! Whether this process should get traffic (`GET /readyz`), apart from whether it is alive
//! (`GET /healthz`): not while it is starting (its match pool not loaded yet), nor once it is
//! draining (a SIGTERM arrived: it answers 503 here for `KIZUNA_DRAIN_SECS` so that the load
//! balancer takes it out of rotation, then shuts down as before), nor while its database or file
//! store cannot be reached.

use std::sync::{
    Arc,
    atomic::{AtomicU8, Ordering},
};

const STARTING: u8 = 0;
const READY: u8 = 1;
const DRAINING: u8 = 2;

/// Where the process stands; shared by the `/readyz` handler and the shutdown.
#[derive(Clone, Debug, Default)]
pub struct Readiness(Arc<AtomicU8>);

/// What `/readyz` says, apart from the database and the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Starting,
    Ready,
    Draining,
}

impl Readiness {
    pub fn stage(&self) -> Stage {
        match self.0.load(Ordering::SeqCst) {
            STARTING => Stage::Starting,
            READY => Stage::Ready,
            _ => Stage::Draining,
        }
    }

    /// Started: ready for traffic (unless it is draining already).
    pub fn started(&self) {
        let _ = self
            .0
            .compare_exchange(STARTING, READY, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Stopping: no new traffic, for good.
    pub fn drain(&self) {
        self.0.store(DRAINING, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_starts_serves_then_drains_and_never_comes_back() {
        let r = Readiness::default();
        assert_eq!(r.stage(), Stage::Starting);
        r.started();
        assert_eq!(r.stage(), Stage::Ready);
        r.drain();
        r.started();
        assert_eq!(r.stage(), Stage::Draining);
    }

    #[test]
    fn a_process_told_to_stop_while_starting_never_turns_ready() {
        let r = Readiness::default();
        r.drain();
        r.started();
        assert_eq!(r.stage(), Stage::Draining);
    }
}
