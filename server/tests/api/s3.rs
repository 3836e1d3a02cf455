//! A real S3-compatible server for the tests: `s3s-fs` from crates.io (`cargo install s3s-fs
//! --version 0.14.1 --features binary`, which `scripts/dev.sh test` runs when it is missing)
//! over a scratch directory, on a port of its own, with credentials, so that it refuses unsigned
//! and wrongly signed requests as a private bucket does. Each test starts its own; every process
//! of the test shares it as machines share a bucket.

use std::{
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use kizuna_server::configuration::{FileStoreSettings, S3Settings};

use crate::{helpers::scratch_dir, process::free_port};

pub const BUCKET: &str = "kizuna-files";
pub const ACCESS_KEY: &str = "kizuna-test";
pub const SECRET_KEY: &str = "kizuna-test-secret-key";

pub struct S3Server {
    child: Child,
    pub endpoint: String,
    /// s3s-fs keeps a bucket as a directory of this root.
    pub root: PathBuf,
}

fn binary() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join("s3s-fs"))
        .find(|p| p.is_file());
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|home| home.join("bin/s3s-fs"));
    on_path.or(cargo_home.filter(|p| p.is_file())).expect(
        "s3s-fs is not installed: `cargo install s3s-fs --version 0.14.1 --features binary` \
             (scripts/dev.sh test does it)",
    )
}

impl S3Server {
    /// A fresh server with one empty bucket, answering within 10 s.
    pub fn start() -> Arc<S3Server> {
        let root = scratch_dir();
        std::fs::create_dir_all(root.join(BUCKET)).unwrap();
        let port = free_port();
        let child = Command::new(binary())
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            .arg(&root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("s3s-fs starts");
        let server = S3Server {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
            root,
        };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "s3s-fs did not listen"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Arc::new(server)
    }

    /// Stops the server (SIGKILL): the bucket cannot be reached from then on.
    pub fn stop(&self) {
        let _ = Command::new("kill")
            .args(["-KILL", &self.child.id().to_string()])
            .status();
    }

    /// What a server process is configured with to keep its files in the bucket.
    pub fn store(&self) -> FileStoreSettings {
        FileStoreSettings::S3(S3Settings {
            bucket: BUCKET.into(),
            prefix: None,
            endpoint: Some(self.endpoint.clone()),
            region: "us-east-1".into(),
            access_key_id: ACCESS_KEY.into(),
            secret_access_key: SECRET_KEY.into(),
        })
    }

    /// The environment a server binary is started with for the same.
    pub fn env(&self) -> [(&'static str, String); 4] {
        [
            ("KIZUNA_FILE_STORE", format!("s3://{BUCKET}")),
            ("KIZUNA_S3_ENDPOINT", self.endpoint.clone()),
            ("KIZUNA_S3_ACCESS_KEY_ID", ACCESS_KEY.into()),
            ("KIZUNA_S3_SECRET_ACCESS_KEY", SECRET_KEY.into()),
        ]
    }

    /// How many objects the bucket holds (read from s3s-fs's directory).
    pub fn object_count(&self) -> usize {
        fn walk(dir: &std::path::Path) -> usize {
            std::fs::read_dir(dir)
                .map(|entries| {
                    entries
                        .flatten()
                        .map(|e| {
                            let path = e.path();
                            if path.is_dir() { walk(&path) } else { 1 }
                        })
                        .sum()
                })
                .unwrap_or(0)
        }
        walk(&self.root.join(BUCKET))
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
