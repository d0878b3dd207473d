//! A real `redis-server` for a test: started on 127.0.0.1 at a free port, without
//! persistence, stopped when dropped. Queried with `redis-cli`, so that it needs no
//! client library (the facade's tests include this file too).
//!
//! Without `redis-server` on the machine the test is skipped with a message, unless
//! `CI` is set: then it fails (`.ci/redis` installs it).
// Each including test binary uses a part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    /// More arguments for `redis-server` (a cluster node's).
    extra: Vec<String>,
}

/// Whether `redis-server` runs here; `false` (with a message) only without `CI`.
fn installed() -> bool {
    let installed = Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !installed {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set and redis-server is missing: run .ci/redis to install it"
        );
        eprintln!("skipped: redis-server is not installed (.ci/redis installs it)");
    }
    installed
}

/// A free port on 127.0.0.1 (with `bus`, also the one 10000 above, a cluster node's
/// bus port).
fn free_port(bus: bool) -> u16 {
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port on 127.0.0.1")
            .port();
        if !bus || (port <= 55_535 && TcpListener::bind(("127.0.0.1", port + 10_000)).is_ok()) {
            return port;
        }
    }
}

impl RedisServer {
    /// A started server, or `None` when `redis-server` is missing and `CI` is unset.
    pub fn start() -> Option<RedisServer> {
        if !installed() {
            return None;
        }
        Some(Self::start_with(false, Vec::new()))
    }

    fn start_with(bus: bool, extra: Vec<String>) -> RedisServer {
        for _ in 0..5 {
            let mut server = RedisServer {
                child: None,
                port: free_port(bus),
                extra: extra.clone(),
            };
            if server.spawn() {
                return server;
            }
        }
        panic!("redis-server did not start on 127.0.0.1");
    }

    /// The address for `RedisStore::connect`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Stops the server (its data is gone: no persistence).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again, empty, on the same port.
    pub fn restart(&mut self) {
        self.stop();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.spawn() {
            assert!(
                Instant::now() < deadline,
                "redis-server did not restart on port {}",
                self.port
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `redis-cli` with these arguments; its raw output.
    pub fn cli(&self, args: &[&str]) -> String {
        let output = Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "--raw"])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("redis-cli runs");
        assert!(output.status.success(), "redis-cli {args:?} failed");
        String::from_utf8(output.stdout).expect("redis-cli prints UTF-8")
    }

    /// Every key in the database, by `SCAN` (`redis-cli --scan`).
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.cli(&["--scan"]).lines().map(str::to_owned).collect();
        keys.sort();
        keys
    }

    /// How many times Redis ran `command` (`INFO commandstats`), failed calls included.
    pub fn calls(&self, command: &str) -> u64 {
        self.command_stats().get(command).copied().unwrap_or(0)
    }

    /// How many times Redis ran each command (`INFO commandstats`), by name, `INFO`
    /// itself left out.
    pub fn command_counts(&self) -> BTreeMap<String, u64> {
        let mut counts = self.command_stats();
        counts.remove("info");
        counts
    }

    fn command_stats(&self) -> BTreeMap<String, u64> {
        self.cli(&["INFO", "commandstats"])
            .lines()
            .filter_map(|line| line.strip_prefix("cmdstat_"))
            .map(|line| {
                let (name, rest) = line.split_once(":calls=").expect("a call count");
                let calls = rest
                    .split(',')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("a call count");
                (name.to_owned(), calls)
            })
            .collect()
    }

    /// The key's time to live in milliseconds (`PTTL`): -1 without one, -2 when absent.
    pub fn pttl(&self, key: &str) -> i64 {
        self.cli(&["PTTL", key])
            .trim()
            .parse()
            .expect("PTTL prints a number")
    }

    /// Starts `redis-server` on this port and waits until it answers PING; `false`
    /// when it exited (the port was taken) or did not answer in time.
    fn spawn(&mut self) -> bool {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .args(
                self.extra
                    .iter()
                    .map(|arg| arg.replace("{port}", &self.port.to_string())),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(child) = self.child.as_mut() {
                if child.try_wait().ok().flatten().is_some() {
                    self.child = None;
                    return false;
                }
            }
            if ping(self.port) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.stop();
        false
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn ping(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut reply = [0u8; 7];
    stream.write_all(b"PING\r\n").is_ok()
        && stream.read_exact(&mut reply).is_ok()
        && &reply == b"+PONG\r\n"
}

/// A Redis Cluster of three primaries on 127.0.0.1, each a [`RedisServer`], their
/// cluster files in a temporary directory removed on drop.
pub struct RedisCluster {
    pub nodes: Vec<RedisServer>,
    dir: std::path::PathBuf,
}

impl RedisCluster {
    /// A started cluster whose every slot is served, or `None` as for [`RedisServer`].
    pub fn start() -> Option<RedisCluster> {
        if !installed() {
            return None;
        }
        let dir = std::env::temp_dir().join(format!(
            "elicit-redis-cluster-{}-{}",
            std::process::id(),
            free_port(false)
        ));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let extra = vec![
            "--cluster-enabled".to_owned(),
            "yes".to_owned(),
            "--cluster-config-file".to_owned(),
            "nodes-{port}.conf".to_owned(),
            "--cluster-node-timeout".to_owned(),
            "2000".to_owned(),
            "--dir".to_owned(),
            dir.to_string_lossy().into_owned(),
        ];
        let nodes: Vec<RedisServer> = (0..3)
            .map(|_| RedisServer::start_with(true, extra.clone()))
            .collect();
        let cluster = RedisCluster { nodes, dir };
        let addresses: Vec<String> = cluster
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect();
        let created = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&addresses)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("redis-cli runs");
        assert!(created.success(), "redis-cli --cluster create failed");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !cluster
            .nodes
            .iter()
            .all(|n| n.cli(&["CLUSTER", "INFO"]).contains("cluster_state:ok"))
        {
            assert!(Instant::now() < deadline, "the cluster did not come up");
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(cluster)
    }

    /// The nodes' addresses, for `RedisStore::connect_cluster`.
    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::url).collect()
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            node.stop();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
