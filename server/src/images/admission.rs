//! The bound on uploads in flight: an upload takes a slot before its body is read and keeps it
//! until its decode has ended, so at most `in_flight` bodies (each at most
//! `MAX_UPLOAD_BODY`) are held at once, of which at most KIZUNA_IMAGE_WORKERS are
//! being decoded. Beyond the bound the answer is 503 with `Retry-After` at once, without reading
//! the body; one user holds at most `rules::UPLOADS_IN_FLIGHT_PER_USER` slots (429 beyond), so no
//! member can take every slot, and a body that trickles is cut off after `body_timeout`, so no
//! slow client keeps one.
//!
//! The slots are this process's memory, so they are counted here, not in the database.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use kizuna_core::rules;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Settings of the bound and the quotas (KIZUNA_UPLOADS_IN_FLIGHT; the rest is not from the
/// environment: the core's rules, which tests shorten).
#[derive(Clone, Debug)]
pub struct UploadLimits {
    /// Uploads being received or decoded at once, over all users.
    pub in_flight: usize,
    /// How long an upload's body may take to arrive once its slot is taken.
    pub body_timeout: Duration,
    /// What a user without a profile may hold unclaimed.
    pub quota_without_profile: Quota,
    /// What a user with a profile may hold unclaimed.
    pub quota_with_profile: Quota,
}

impl UploadLimits {
    /// Twice the image workers: one body decoding on each worker and one arriving behind it.
    pub fn for_workers(image_workers: usize) -> UploadLimits {
        UploadLimits {
            in_flight: image_workers.max(1) * 2,
            body_timeout: Duration::from_secs(BODY_TIMEOUT_SECS),
            quota_without_profile: Quota {
                files: rules::UNCLAIMED_UPLOADS_WITHOUT_PROFILE,
                bytes: rules::UNCLAIMED_UPLOAD_BYTES_WITHOUT_PROFILE,
            },
            quota_with_profile: Quota {
                files: rules::UNCLAIMED_UPLOADS_WITH_PROFILE,
                bytes: rules::UNCLAIMED_UPLOAD_BYTES_WITH_PROFILE,
            },
        }
    }

    /// The quota of a user with or without a profile.
    pub fn quota(&self, has_profile: bool) -> Quota {
        if has_profile {
            self.quota_with_profile
        } else {
            self.quota_without_profile
        }
    }
}

/// How much a user may hold in uploads nothing claimed yet (under a day old): files, and their
/// stored bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quota {
    pub files: u32,
    pub bytes: u64,
}

/// A 10 MB body in a minute is 1.4 Mbit/s; the web app sends photos of at most 1280 px, a few
/// hundred KB.
pub const BODY_TIMEOUT_SECS: u64 = 60;

/// Seconds a refused upload is asked to wait (`Retry-After`): about one decode of a large photo.
pub const RETRY_AFTER_SECS: u64 = 2;

/// What one decode may hold at its peak: the decoded image at its largest (40 MP of 8-bit RGBA)
/// and one more image of that size (the EXIF rotation, or the conversion a 16-bit image needs
/// before it is encoded). A JPEG holds less: it decodes to RGB and is encoded from that without
/// a copy.
pub const DECODE_BYTES: u64 = 2 * super::MAX_PIXELS * 4;

/// The most memory uploads can hold at once above an idle server, in bytes: `in_flight` bodies
/// of at most `MAX_UPLOAD_BODY` (received, or waiting for a worker) and `workers` decodes.
/// docs/design.md states it; `just bench-uploads` measures a burst against it.
pub fn memory_ceiling(in_flight: usize, workers: usize) -> u64 {
    in_flight as u64 * super::MAX_UPLOAD_BODY as u64 + workers as u64 * DECODE_BYTES
}

/// Why no slot was given.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Every slot of the process is taken: 503.
    Busy,
    /// This user holds their share already: 429.
    UserBusy,
}

pub struct UploadSlots {
    slots: Arc<Semaphore>,
    capacity: usize,
    per_user: u32,
    held: Arc<Mutex<HashMap<i64, u32>>>,
}

impl UploadSlots {
    pub fn new(in_flight: usize, per_user: u32) -> UploadSlots {
        UploadSlots {
            slots: Arc::new(Semaphore::new(in_flight.max(1))),
            capacity: in_flight.max(1),
            per_user: per_user.max(1),
            held: Arc::default(),
        }
    }

    /// Uploads being received or decoded now.
    pub fn in_use(&self) -> usize {
        self.capacity - self.slots.available_permits()
    }

    /// A slot for `user_id` now, or why not (never waits).
    pub fn try_take(&self, user_id: i64) -> Result<UploadSlot, Refused> {
        let mut held = self.held.lock().expect("upload slots");
        let mine = held.entry(user_id).or_insert(0);
        if *mine >= self.per_user {
            return Err(Refused::UserBusy);
        }
        let Ok(permit) = self.slots.clone().try_acquire_owned() else {
            if *mine == 0 {
                held.remove(&user_id);
            }
            return Err(Refused::Busy);
        };
        *mine += 1;
        Ok(UploadSlot {
            _permit: permit,
            user_id,
            held: self.held.clone(),
        })
    }

    /// Slots free right now (tests and diagnostics).
    pub fn free(&self) -> usize {
        self.slots.available_permits()
    }
}

/// A taken slot: given back when dropped (share it with an `Arc` to keep it while a decode runs
/// on after its request is gone).
pub struct UploadSlot {
    _permit: OwnedSemaphorePermit,
    user_id: i64,
    held: Arc<Mutex<HashMap<i64, u32>>>,
}

impl Drop for UploadSlot {
    fn drop(&mut self) {
        let mut held = self.held.lock().expect("upload slots");
        if let Some(n) = held.get_mut(&self.user_id) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.user_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_bounded_in_all_and_per_user_and_come_back_when_dropped() {
        let slots = UploadSlots::new(3, 2);
        let a1 = slots.try_take(1).unwrap();
        let a2 = slots.try_take(1).unwrap();
        assert_eq!(slots.try_take(1).err(), Some(Refused::UserBusy));
        let b1 = slots.try_take(2).unwrap();
        assert_eq!(slots.try_take(3).err(), Some(Refused::Busy));
        assert_eq!(slots.free(), 0);
        drop(a1);
        assert_eq!(slots.free(), 1);
        let c1 = slots.try_take(3).unwrap();
        drop((a2, b1, c1));
        assert_eq!(slots.free(), 3);
        assert!(
            slots.held.lock().unwrap().is_empty(),
            "nobody is remembered"
        );
    }
}
