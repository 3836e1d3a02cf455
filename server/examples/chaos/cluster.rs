//! The processes of a chaos run: a PostgreSQL cluster of its own (initdb and pg_ctl of the
//! installed PostgreSQL, on a spare port, never the machine's 5432), an S3 server (s3s-fs), the
//! mock LINE platform in a third kizuna-server process that no kill reaches, and the two serving
//! processes that are killed and restarted.

use std::{
    fs::File,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, bail};

pub const BUCKET: &str = "kizuna-chaos";
const S3_KEY: &str = "kizuna-chaos";
const S3_SECRET: &str = "kizuna-chaos-secret-key";

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("its address")
        .port()
}

fn wait_for_port(port: u16, what: &str) -> anyhow::Result<()> {
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if started.elapsed() > Duration::from_secs(60) {
            bail!("{what} did not listen on {port} within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// Waits until a server answers `/healthz` with 200: a port that accepts is not yet a server
/// that serves (it may still be migrating, or about to exit on an error).
fn wait_for_health(port: u16, what: &str, process: &mut Process) -> anyhow::Result<()> {
    use std::io::{Read, Write};
    let started = Instant::now();
    loop {
        if let Some(status) = process.exited() {
            bail!(
                "{what} exited while starting ({status}): see {what}-*.log in the run's directory"
            );
        }
        let healthy = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok_and(|mut s| {
            let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
            let mut answer = [0u8; 12];
            s.write_all(b"GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                .is_ok()
                && s.read_exact(&mut answer).is_ok()
                && answer.ends_with(b" 200")
        });
        if healthy {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(60) {
            bail!("{what} did not answer /healthz on {port} within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A child process killed (SIGKILL) when dropped.
pub struct Process(Option<Child>);

impl Process {
    fn spawn(command: &mut Command, log: &Path) -> anyhow::Result<Process> {
        let log = File::create(log)?;
        let child = command
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {command:?}"))?;
        Ok(Process(Some(child)))
    }

    /// How the process ended, if it has (None while it runs, and once killed on purpose).
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.0
            .as_mut()
            .and_then(|child| child.try_wait().ok().flatten())
    }

    pub fn kill(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGTERM, as an orderly shutdown, and waits for the exit.
    pub fn terminate(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let _ = child.wait();
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The scratch directory of a run, removed at the end unless the run failed.
pub struct RunDir(pub PathBuf);

impl RunDir {
    pub fn new() -> anyhow::Result<RunDir> {
        let dir = std::env::temp_dir().join(format!("kizuna-chaos-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(RunDir(dir))
    }
}

/// Runs a PostgreSQL tool as the `postgres` user when this is root (initdb and postgres refuse
/// to run as root).
fn pg_tool(bin: &Path, tool: &str) -> Command {
    let path = bin.join(tool);
    // `id -u` rather than a libc dependency for one call.
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.starts_with(b"0\n"))
        .unwrap_or(false);
    if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(path);
        c
    } else {
        Command::new(path)
    }
}

fn postgres_bin() -> anyhow::Result<PathBuf> {
    let out = Command::new("pg_config").arg("--bindir").output();
    if let Ok(out) = out
        && out.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if dir.join("initdb").is_file() {
            return Ok(dir);
        }
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").is_file())
        .collect();
    found.sort();
    found
        .pop()
        .context("no PostgreSQL server binaries (initdb) found")
}

/// A PostgreSQL cluster of the run's own.
pub struct Postgres {
    bin: PathBuf,
    data: PathBuf,
    log: PathBuf,
    pub port: u16,
}

impl Postgres {
    pub fn start(run: &Path) -> anyhow::Result<Postgres> {
        let bin = postgres_bin()?;
        let home = run.join("pg");
        std::fs::create_dir_all(&home)?;
        let _ = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&home)
            .status();
        let data = home.join("data");
        let status = pg_tool(&bin, "initdb")
            .args(["-U", "postgres", "--auth=trust", "-E", "UTF8", "-D"])
            .arg(&data)
            .stdout(Stdio::null())
            .status()?;
        if !status.success() {
            bail!("initdb failed");
        }
        let pg = Postgres {
            bin,
            log: home.join("postgres.log"),
            data,
            port: free_port(),
        };
        pg.ctl(&["start", "-w"])?;
        let status = Command::new("psql")
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &pg.port.to_string(),
                "-U",
                "postgres",
            ])
            .args(["-q", "-c", "CREATE DATABASE kizuna"])
            .status()?;
        if !status.success() {
            bail!("CREATE DATABASE failed");
        }
        Ok(pg)
    }

    fn ctl(&self, action: &[&str]) -> anyhow::Result<()> {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=400 {}",
            self.port,
            self.data.parent().unwrap().display(),
            std::env::var("CHAOS_PG_OPTIONS").unwrap_or_default()
        );
        let status = pg_tool(&self.bin, "pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(&self.log)
            .args(["-o", &options])
            .args(action)
            .stdout(Stdio::null())
            .status()?;
        if !status.success() {
            bail!("pg_ctl {action:?} failed (see {})", self.log.display());
        }
        Ok(())
    }

    /// Over loopback TCP, as servers on other machines would reach it; with `CHAOS_PG_SOCKET=1`,
    /// over the cluster's Unix socket, as servers on its own machine could (the port names the
    /// socket's file).
    pub fn url(&self) -> String {
        if std::env::var("CHAOS_PG_SOCKET").is_ok_and(|v| v == "1") {
            format!(
                "postgres://postgres@localhost:{}/kizuna?host={}",
                self.port,
                self.data.parent().unwrap().display()
            )
        } else {
            format!("postgres://postgres@127.0.0.1:{}/kizuna", self.port)
        }
    }

    /// Stops the cluster as a crash would (`-m immediate`: no checkpoint, recovery at the next
    /// start) and starts it again.
    pub fn restart(&self) -> anyhow::Result<()> {
        self.ctl(&["stop", "-m", "immediate", "-w"])?;
        self.ctl(&["start", "-w"])
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self.ctl(&["stop", "-m", "immediate", "-w"]);
    }
}

/// An S3 bucket served by s3s-fs over a directory of the run.
pub struct S3 {
    _process: Process,
    pub endpoint: String,
}

impl S3 {
    pub fn start(run: &Path, binary: &str) -> anyhow::Result<S3> {
        let root = run.join("s3");
        std::fs::create_dir_all(root.join(BUCKET))?;
        let port = free_port();
        let process = Process::spawn(
            Command::new(binary)
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .args(["--access-key", S3_KEY, "--secret-key", S3_SECRET])
                .arg(&root),
            &run.join("s3s-fs.log"),
        )?;
        wait_for_port(port, "s3s-fs")?;
        Ok(S3 {
            _process: process,
            endpoint: format!("http://127.0.0.1:{port}"),
        })
    }
}

/// How a kizuna-server process of the run is started.
#[derive(Clone)]
pub struct ServerSpec {
    pub bin: PathBuf,
    pub name: &'static str,
    pub port: u16,
    pub env: Vec<(String, String)>,
    pub data_dir: PathBuf,
    pub log_dir: PathBuf,
}

/// One kizuna-server process, restartable on the same port.
pub struct Server {
    pub spec: ServerSpec,
    process: Process,
    starts: usize,
}

impl Server {
    pub fn start(spec: ServerSpec) -> anyhow::Result<Server> {
        let process = Server::spawn(&spec, 0)?;
        Ok(Server {
            spec,
            process,
            starts: 1,
        })
    }

    fn spawn(spec: &ServerSpec, start: usize) -> anyhow::Result<Process> {
        std::fs::create_dir_all(&spec.data_dir)?;
        let mut process = Process::spawn(
            Command::new(&spec.bin)
                .arg("serve")
                .env_clear()
                .env("PATH", std::env::var("PATH").unwrap_or_default())
                .env("KIZUNA_BIND", format!("127.0.0.1:{}", spec.port))
                .env("KIZUNA_DATA_DIR", &spec.data_dir)
                .env("KIZUNA_WEB_DIR", spec.data_dir.join("web"))
                .env("KIZUNA_INTRODUCTIONS_AT", "off")
                .env("RUST_LOG", "warn")
                .envs(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
            &spec.log_dir.join(format!("{}-{start}.log", spec.name)),
        )?;
        wait_for_health(spec.port, spec.name, &mut process)?;
        Ok(process)
    }

    /// Whether the server runs (it has not exited by itself).
    pub fn running(&mut self) -> bool {
        self.process.0.is_some() && self.process.exited().is_none()
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.spec.port)
    }

    /// SIGKILL: no shutdown, no goodbye to the database or the streams.
    pub fn kill(&mut self) {
        self.process.kill();
    }

    pub fn terminate(&mut self) {
        self.process.terminate();
    }

    pub fn restart(&mut self) -> anyhow::Result<()> {
        self.process.kill();
        self.process = Server::spawn(&self.spec, self.starts)?;
        self.starts += 1;
        Ok(())
    }
}

/// What a serving process needs to keep its files in the run's bucket.
pub fn s3_env(s3: &S3) -> Vec<(String, String)> {
    vec![
        ("KIZUNA_FILE_STORE".into(), format!("s3://{BUCKET}")),
        ("KIZUNA_S3_ENDPOINT".into(), s3.endpoint.clone()),
        ("KIZUNA_S3_ACCESS_KEY_ID".into(), S3_KEY.into()),
        ("KIZUNA_S3_SECRET_ACCESS_KEY".into(), S3_SECRET.into()),
    ]
}
