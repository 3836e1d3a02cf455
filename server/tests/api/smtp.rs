//! A real SMTP server for the tests: Python's aiosmtpd (`server/tests/smtp/capture.py`) in a
//! virtualenv under the cargo target dir, created on first use by `scripts/smtp-venv.sh` (which
//! `just test-server` also runs beforehand). Each test starts its own server on its own port;
//! accepted mails land as JSON files in a directory of their own.

use std::{
    io::{BufRead, BufReader},
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::OnceLock,
    time::{Duration, Instant},
};

use serde::Deserialize;

use crate::helpers::scratch_dir;

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// A mail as the SMTP server received it (headers decoded by Python's email package).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Captured {
    pub mail_from: String,
    pub rcpt_tos: Vec<String>,
    pub subject: String,
    pub from: String,
    pub text: String,
}

fn venv_python() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let dir = std::env::var_os("KIZUNA_TEST_VENV")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("smtp-venv"));
            let out = Command::new("bash")
                .arg(format!("{REPO}/scripts/smtp-venv.sh"))
                .arg(&dir)
                .output()
                .expect("bash runs scripts/smtp-venv.sh");
            assert!(
                out.status.success(),
                "could not set up aiosmtpd: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            dir.join("bin/python")
        })
        .clone()
}

pub struct SmtpServer {
    child: Child,
    pub port: u16,
    dir: PathBuf,
}

impl SmtpServer {
    pub fn start() -> SmtpServer {
        let python = venv_python();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = scratch_dir();
        let mut child = Command::new(python)
            .arg(format!("{REPO}/server/tests/smtp/capture.py"))
            .arg(port.to_string())
            .arg(dir.join("mails"))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the SMTP server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "ready", "the SMTP server did not come up");
        SmtpServer { child, port, dir }
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every mail received so far, oldest first.
    pub fn mails(&self) -> Vec<Captured> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(self.dir.join("mails"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap())
            .collect()
    }

    /// Waits until `n` mails have arrived (the server writes them as it accepts them).
    pub async fn wait_for(&self, n: usize) -> Vec<Captured> {
        let started = Instant::now();
        loop {
            let mails = self.mails();
            if mails.len() >= n {
                return mails;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "{} of {n} mails arrived",
                mails.len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
