//! The image workers: a fixed set of threads for the CPU-bound image work (re-encoding uploads,
//! rendering proxy variants), KIZUNA_IMAGE_WORKERS of them.
//!
//! Why not tokio's blocking pool: its threads come and go, and glibc's malloc gives every thread
//! that allocates at once an arena of its own and keeps what it freed there. Multi-megabyte image
//! buffers spread over a changing crowd of threads left the server at twice the resident memory
//! it needs (measured by `just bench`); a few long-lived threads reuse a few arenas.

use std::{
    panic::AssertUnwindSafe,
    sync::{Arc, Mutex, mpsc},
};

use anyhow::Context;
use tokio::sync::Semaphore;

type Job = Box<dyn FnOnce() + Send>;

pub struct ImageWorkers {
    permits: Arc<Semaphore>,
    jobs: mpsc::Sender<Job>,
}

impl ImageWorkers {
    /// Starts `threads` workers; they stop when this is dropped.
    pub fn new(threads: usize) -> anyhow::Result<ImageWorkers> {
        let threads = threads.max(1);
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..threads {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("kizuna-image-{i}"))
                .spawn(move || {
                    loop {
                        let job = match queue.lock() {
                            Ok(queue) => queue.recv(),
                            Err(_) => return,
                        };
                        match job {
                            Ok(job) => job(),
                            // Every sender is gone: the server is shutting down.
                            Err(_) => return,
                        }
                    }
                })
                .context("starting an image worker")?;
        }
        Ok(ImageWorkers {
            permits: Arc::new(Semaphore::new(threads)),
            jobs,
        })
    }

    /// Runs `job` on a worker, waiting for a free one.
    ///
    /// The permit travels with the job, not with the request: a client that hangs up drops the
    /// awaiting future, but a decode that has started runs on until it ends, and must keep
    /// counting against the bound or hang-ups could pile up decodes without limit. A job whose
    /// request is gone before a worker is free never starts.
    pub async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> anyhow::Result<T> {
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .context("the image workers are closed")?;
        let (answer, answered) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Box::new(move || {
                let out = std::panic::catch_unwind(AssertUnwindSafe(job));
                drop(permit);
                if let Ok(out) = out {
                    let _ = answer.send(out);
                }
            }))
            .ok()
            .context("the image workers have stopped")?;
        answered.await.context("an image job panicked")
    }

    /// Workers free right now (for tests and diagnostics).
    pub fn idle(&self) -> usize {
        self.permits.available_permits()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::ImageWorkers;

    #[tokio::test]
    async fn an_abandoned_job_keeps_its_worker_until_it_really_ends() {
        let workers = std::sync::Arc::new(ImageWorkers::new(1).unwrap());
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let (started_tx, started) = tokio::sync::oneshot::channel();
        let abandoned = tokio::spawn({
            let workers = workers.clone();
            async move {
                workers
                    .run(move || {
                        started_tx.send(()).ok();
                        wait.recv().ok();
                    })
                    .await
            }
        });
        started.await.unwrap();
        // The client hangs up while the decode runs.
        abandoned.abort();
        assert!(abandoned.await.unwrap_err().is_cancelled());
        assert_eq!(workers.idle(), 0, "the running job still counts");
        let second = tokio::time::timeout(Duration::from_millis(100), workers.run(|| 2)).await;
        assert!(second.is_err(), "a second job had to wait for the worker");

        release.send(()).unwrap();
        let answer = tokio::time::timeout(Duration::from_secs(5), workers.run(|| 7))
            .await
            .expect("the worker is free again once the job ends")
            .unwrap();
        assert_eq!(answer, 7);
        assert_eq!(workers.idle(), 1);
    }

    #[tokio::test]
    async fn a_panicking_job_is_an_error_and_the_worker_lives_on() {
        let workers = ImageWorkers::new(1).unwrap();
        let failed = workers.run(|| -> u8 { panic!("a decoder bug") }).await;
        assert!(failed.is_err());
        assert_eq!(workers.run(|| 5).await.unwrap(), 5);
        assert_eq!(workers.idle(), 1);
    }

    #[tokio::test]
    async fn jobs_run_on_at_most_as_many_threads_as_workers() {
        let workers = std::sync::Arc::new(ImageWorkers::new(2).unwrap());
        let names = futures_util::future::join_all((0..16).map(|_| {
            let workers = workers.clone();
            async move {
                workers
                    .run(|| {
                        std::thread::sleep(Duration::from_millis(5));
                        std::thread::current().name().map(str::to_string)
                    })
                    .await
                    .unwrap()
            }
        }))
        .await;
        let distinct: std::collections::BTreeSet<_> = names.into_iter().flatten().collect();
        assert!(!distinct.is_empty() && distinct.len() <= 2, "{distinct:?}");
        assert!(distinct.iter().all(|n| n.starts_with("kizuna-image-")));
    }
}
