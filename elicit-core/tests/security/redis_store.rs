//! `agent/redis.rs` beyond the contract every `Store` keeps (`store_contract`): what a
//! `RedisStore` does when Redis fails, hangs, loses an answer or answers what it never
//! should, and the settings it is given.
//!
//! A real `redis-server` (`redis_server`) shows the failures a server has: stopped,
//! restarted, refusing a command. The rest needs a Redis that misbehaves on cue, which
//! no real one does deterministically: [`FakeRedis`], a stand-in on 127.0.0.1 that
//! speaks the protocol and answers each command as the test says, or not at all (an
//! answer lost on the way, after the write happened).

use std::error::Error as _;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use elicit_core::agent::{RedisConfig, RedisStore, Store, StoreError};

use crate::redis_server::RedisServer;
use crate::store_contract::redis_store::is_redis_error;
use crate::store_contract::{record, Record};

/// The message of the error's cause (`redis: … failed …`).
fn cause(error: &StoreError) -> String {
    error.source().expect("a cause").to_string()
}

/// Settings whose calls give up within seconds (`RedisConfig::new`'s 2 s timeouts
/// let one wait up to half a minute with 3 attempts).
fn quick() -> RedisConfig {
    RedisConfig::new()
        .response_timeout(Duration::from_millis(500))
        .connection_timeout(Duration::from_millis(500))
}

/// A store on `server` with `config`, records under `test:`.
fn store_on(server: &RedisServer, config: RedisConfig) -> RedisStore<Record> {
    RedisStore::connect(server.url().as_str(), config.prefix("test:")).expect("Redis answers")
}

/// What [`FakeRedis`] does with one command.
enum Answer {
    /// These bytes, a whole RESP reply.
    Reply(Vec<u8>),
    /// These bytes after [`LATE`]: an answer the client stopped waiting for.
    Late(Vec<u8>),
    /// Nothing: the client waits until its response timeout.
    Silent,
}

/// The response timeout of the stores on a [`FakeRedis`] that answers late.
const TIMEOUT: Duration = Duration::from_millis(500);
/// How late a late answer is: after the client's timeout, and soon enough that the
/// next command, sent after the timeout and a backoff, is answered in time.
const LATE: Duration = Duration::from_millis(800);

fn late(reply: &str) -> Answer {
    Answer::Late(reply.as_bytes().to_vec())
}

fn bulk(bytes: &[u8]) -> Answer {
    let mut reply = format!("${}\r\n", bytes.len()).into_bytes();
    reply.extend_from_slice(bytes);
    reply.extend_from_slice(b"\r\n");
    Answer::Reply(reply)
}

fn raw(reply: &str) -> Answer {
    Answer::Reply(reply.as_bytes().to_vec())
}

const NIL: &str = "$-1\r\n";

/// A stand-in for Redis on 127.0.0.1: the connection's handshake (`CLIENT SETINFO`) is
/// answered `+OK`, every other command as `answer` says, given the command's arguments
/// and how many commands of that name came before it. It keeps the commands it was
/// sent. Its threads end with the test binary.
struct FakeRedis {
    port: u16,
    commands: Arc<Mutex<Vec<Vec<Vec<u8>>>>>,
}

type Answerer = dyn Fn(&[Vec<u8>], usize) -> Answer + Send + Sync;

impl FakeRedis {
    fn start(answer: impl Fn(&[Vec<u8>], usize) -> Answer + Send + Sync + 'static) -> FakeRedis {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().unwrap().port();
        let commands = Arc::new(Mutex::new(Vec::new()));
        let answer: Arc<Answerer> = Arc::new(answer);
        let seen = Arc::clone(&commands);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (answer, seen) = (Arc::clone(&answer), Arc::clone(&seen));
                std::thread::spawn(move || serve(stream, &*answer, &seen));
            }
        });
        FakeRedis { port, commands }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The names of the commands it was sent, handshakes left out, in order.
    fn sent(&self) -> Vec<String> {
        self.commands
            .lock()
            .unwrap()
            .iter()
            .map(|command| String::from_utf8_lossy(&command[0]).to_uppercase())
            .filter(|name| name != "CLIENT")
            .collect()
    }

    /// A store on it: answers waited for [`TIMEOUT`], 3 attempts.
    fn store(&self) -> RedisStore<Record> {
        RedisStore::connect(
            self.url().as_str(),
            RedisConfig::new()
                .prefix("test:")
                .attempts(3)
                .response_timeout(TIMEOUT)
                .connection_timeout(TIMEOUT),
        )
        .expect("the stand-in answers the handshake")
    }
}

fn serve(stream: TcpStream, answer: &Answerer, seen: &Mutex<Vec<Vec<Vec<u8>>>>) {
    let mut writer = stream.try_clone().expect("a second handle");
    let mut reader = BufReader::new(stream);
    while let Some(command) = read_command(&mut reader) {
        let name = String::from_utf8_lossy(&command[0]).to_uppercase();
        let reply = if name == "CLIENT" {
            raw("+OK\r\n")
        } else {
            let before = seen
                .lock()
                .unwrap()
                .iter()
                .filter(|c| c[0].eq_ignore_ascii_case(name.as_bytes()))
                .count();
            answer(&command, before)
        };
        seen.lock().unwrap().push(command);
        let bytes = match reply {
            Answer::Reply(bytes) => bytes,
            Answer::Late(bytes) => {
                std::thread::sleep(LATE);
                bytes
            }
            Answer::Silent => continue,
        };
        if writer.write_all(&bytes).is_err() {
            return;
        }
    }
}

/// One command, an array of bulk strings; `None` when the client hung up.
fn read_command(reader: &mut impl BufRead) -> Option<Vec<Vec<u8>>> {
    let mut line = String::new();
    let count: usize = {
        reader.read_line(&mut line).ok().filter(|n| *n > 0)?;
        line.trim_end().strip_prefix('*')?.parse().ok()?
    };
    let mut command = Vec::with_capacity(count);
    for _ in 0..count {
        line.clear();
        reader.read_line(&mut line).ok()?;
        let len: usize = line.trim_end().strip_prefix('$')?.parse().ok()?;
        let mut arg = vec![0; len + 2];
        reader.read_exact(&mut arg).ok()?;
        arg.truncate(len);
        command.push(arg);
    }
    Some(command)
}

/// The store's own settings and nothing else: its prefix and TTL as configured and as
/// Redis holds them, `with_ttl`'s TTL under the same prefix, and a `Debug` that names
/// them but not the address.
// covers: U4
#[test]
fn the_settings_are_the_ones_given_and_reach_redis() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let store = store_on(&server, RedisConfig::new().ttl(Duration::from_secs(40)));
    assert_eq!(store.config().key_prefix(), "test:");
    assert_eq!(store.config().time_to_live(), Duration::from_secs(40));
    let shorter = store.with_ttl(Duration::from_secs(20));
    assert_eq!(shorter.config().key_prefix(), "test:", "the same prefix");
    assert_eq!(shorter.config().time_to_live(), Duration::from_secs(20));
    assert_eq!(
        store.config().time_to_live(),
        Duration::from_secs(40),
        "the original keeps its own"
    );
    assert!(store.insert_new("long", record(1)).unwrap());
    assert!(shorter.insert_new("short", record(2)).unwrap());
    let (long, short) = (server.pttl("test:long"), server.pttl("test:short"));
    assert!(long > 35_000 && long <= 40_000, "PTTL {long}");
    assert!(short > 15_000 && short <= 20_000, "PTTL {short}");
    assert_eq!(
        shorter.get("long").unwrap(),
        Some(record(1)),
        "one keyspace"
    );

    let shown = format!("{store:?}");
    assert!(
        shown.starts_with("RedisStore") && shown.contains("\"test:\"") && shown.contains("40s"),
        "{shown}"
    );
    let port = server
        .url()
        .rsplit(':')
        .next()
        .unwrap()
        .trim_matches('/')
        .to_owned();
    assert!(!shown.contains(&port), "no address: {shown}");
}

/// One call on a store, its result left out.
type Operation<'a> = dyn Fn() -> Result<(), StoreError> + 'a;

/// A stopped Redis: each operation is tried exactly the configured number of times,
/// waiting longer before each new attempt, then fails saying how many it made.
// covers: R5
#[test]
fn a_stopped_redis_is_tried_the_configured_number_of_times_with_backoff() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let store = store_on(
        &server,
        RedisConfig::new()
            .attempts(4)
            .response_timeout(Duration::from_millis(500))
            .connection_timeout(Duration::from_millis(500)),
    );
    assert!(store.insert_new("k", record(1)).unwrap());
    server.stop();
    // The pauses before attempts 2, 3 and 4: 25, 50 and 100 ms.
    let backoffs = Duration::from_millis(175);
    let operations: [(&str, &Operation); 4] = [
        ("reading a record", &|| store.get("k").map(drop)),
        ("inserting a record", &|| {
            store.insert_new("new", record(1)).map(drop)
        }),
        ("compare-and-swap", &|| {
            store
                .compare_and_swap("k", &record(1), Some(record(2)))
                .map(drop)
        }),
        ("compare-and-swap", &|| {
            store.compare_and_swap("k", &record(1), None).map(drop)
        }),
    ];
    for (what, operation) in operations {
        let started = Instant::now();
        let error = operation().unwrap_err();
        let took = started.elapsed();
        assert!(is_redis_error(&error), "{error:?}");
        assert_eq!(
            cause(&error),
            format!(
                "redis: {what} failed after 4 attempts: the server could not answer or refused"
            )
        );
        assert!(took >= backoffs, "{what}: {took:?}");
        assert!(took < Duration::from_secs(5), "{what}: {took:?}");
    }
}

/// The pause before an attempt is for retries only: a first attempt is sent at once.
/// 100 reads and 100 inserts take well under the 2.5 s that a 25 ms pause before each
/// would add.
// covers: R5
#[test]
fn a_first_attempt_is_sent_without_a_pause() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let store = store_on(&server, RedisConfig::new());
    assert!(store.insert_new("warm", record(0)).unwrap());
    let started = Instant::now();
    for n in 0..100 {
        assert_eq!(store.get("warm").unwrap(), Some(record(0)));
        assert!(store.insert_new(&format!("k{n}"), record(n)).unwrap());
    }
    let took = started.elapsed();
    assert!(took < Duration::from_millis(2500), "{took:?}");
}

/// What Redis refuses (a command on a key of another type) is not a transient error:
/// sent once, and the error says nothing of attempts.
// covers: R5
#[test]
fn a_refusal_from_redis_is_not_sent_again() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let store = store_on(&server, quick().attempts(2));
    // Load the script, so that the swap below is one EVALSHA.
    assert!(!store.compare_and_swap("warm", &record(0), None).unwrap());
    server.cli(&["HSET", "test:h", "f", "v"]);
    let (gets, scripts) = (server.calls("get"), server.calls("evalsha"));
    let error = store.get("h").unwrap_err();
    assert!(is_redis_error(&error), "{error:?}");
    assert_eq!(
        cause(&error),
        "redis: reading a record failed: the server could not answer or refused"
    );
    assert_eq!(server.calls("get") - gets, 1, "one GET");
    let error = store.compare_and_swap("h", &record(1), None).unwrap_err();
    assert!(is_redis_error(&error), "{error:?}");
    assert_eq!(
        cause(&error),
        "redis: compare-and-swap failed: the server could not answer or refused"
    );
    assert_eq!(server.calls("evalsha") - scripts, 1, "one EVALSHA");
}

/// Each operation, when it is the first to find the connection broken by a restart,
/// is tried again on the new connection and works: no call fails for a restart alone.
// covers: R5
#[test]
fn each_operation_works_as_the_first_after_a_restart() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let store = store_on(&server, quick().attempts(3));
    assert!(store.insert_new("k", record(1)).unwrap());
    server.restart();
    assert_eq!(
        store.get("k").unwrap(),
        None,
        "the restarted server is empty"
    );
    server.restart();
    assert!(!store
        .compare_and_swap("k", &record(1), Some(record(2)))
        .unwrap());
    server.restart();
    assert!(store.insert_new("k", record(3)).unwrap());
    assert_eq!(store.get("k").unwrap(), Some(record(3)));
}

/// A record equal as a value but written differently (another version's JSON) is
/// swapped against the bytes Redis holds, in a second attempt: so with one attempt
/// only, it is not. A different record is never swapped.
// covers: U5
#[test]
fn a_record_written_differently_is_swapped_against_its_own_bytes() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let token = "0123456789abcdef0123456789abcdef";
    let spaced = |version: u32| format!("{token}[ {version} , \"state {version}\" ]");
    let store = store_on(&server, RedisConfig::new().attempts(2));
    let once = store_on(&server, RedisConfig::new().attempts(1));

    server.cli(&["SET", "test:k", &spaced(1), "PX", "60000"]);
    assert_eq!(store.get("k").unwrap(), Some(record(1)));
    assert!(
        !once
            .compare_and_swap("k", &record(1), Some(record(2)))
            .unwrap(),
        "one attempt: no second round trip"
    );
    assert_eq!(server.cli(&["GET", "test:k"]).trim_end(), spaced(1));
    assert!(
        !store
            .compare_and_swap("k", &record(2), Some(record(3)))
            .unwrap(),
        "another record"
    );
    assert_eq!(server.cli(&["GET", "test:k"]).trim_end(), spaced(1));
    assert!(store
        .compare_and_swap("k", &record(1), Some(record(2)))
        .unwrap());
    assert_eq!(store.get("k").unwrap(), Some(record(2)));

    server.cli(&["SET", "test:k", &spaced(2), "PX", "60000"]);
    assert!(store.compare_and_swap("k", &record(2), None).unwrap());
    assert_eq!(store.get("k").unwrap(), None);
}

/// Timeouts shorter than the pause between attempts are valid settings: the store
/// connects and works with them.
// covers: R5
#[test]
fn short_timeouts_are_valid() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let store = store_on(
        &server,
        RedisConfig::new()
            .attempts(1)
            .response_timeout(Duration::from_millis(80))
            .connection_timeout(Duration::from_millis(100)),
    );
    assert!(store.insert_new("k", record(1)).unwrap());
    assert_eq!(store.get("k").unwrap(), Some(record(1)));
}

/// A Redis that takes commands and never answers: every attempt is waited for its
/// whole response timeout, and the caller is told Redis timed out after them all.
// covers: R5
#[test]
fn a_redis_that_never_answers_is_waited_for_every_attempt() {
    let fake = FakeRedis::start(|_, _| Answer::Silent);
    let store = RedisStore::<Record>::connect(
        fake.url().as_str(),
        RedisConfig::new()
            .attempts(5)
            .response_timeout(Duration::from_secs(1))
            .connection_timeout(Duration::from_millis(200)),
    )
    .unwrap();
    let started = Instant::now();
    let error = store.get("k").unwrap_err();
    let took = started.elapsed();
    assert!(is_redis_error(&error), "{error:?}");
    assert_eq!(
        cause(&error),
        "redis: reading a record failed after 5 attempts: the server could not answer or refused"
    );
    assert!(took >= Duration::from_secs(5), "{took:?}");
    assert_eq!(fake.sent(), vec!["GET"; 5]);
}

/// An insert whose `SET` answer was lost, the next `GET` finding nothing, then its
/// `SET` refused because the lost one had landed by then: the record read back carries
/// this call's token, so it did insert.
// covers: U4
#[test]
fn an_insert_whose_lost_write_landed_late_is_told_it_inserted() {
    let first_set = Arc::new(Mutex::new(Vec::new()));
    let landed = Arc::clone(&first_set);
    let fake = FakeRedis::start(move |command, before| {
        match (command[0].to_ascii_uppercase().as_slice(), before) {
            (b"SET", 0) => {
                *landed.lock().unwrap() = command[2].clone();
                late("+OK\r\n")
            }
            (b"SET", _) => raw(NIL),
            (b"GET", 0) => raw(NIL),
            (b"GET", _) => bulk(&landed.lock().unwrap()),
            _ => raw("-ERR unexpected\r\n"),
        }
    });
    let store = fake.store();
    assert!(store.insert_new("k", record(1)).unwrap());
    assert_eq!(fake.sent(), ["SET", "GET", "SET", "GET"]);
    assert!(first_set.lock().unwrap().ends_with(b"[1,\"state 1\"]"));
}

/// The same, but the key holds another writer's record: this call did not insert.
// covers: U4
#[test]
fn an_insert_whose_lost_write_lost_the_race_is_told_so() {
    let theirs = format!("{}[9,\"state 9\"]", "f".repeat(32));
    let fake = FakeRedis::start(move |command, before| {
        match (command[0].to_ascii_uppercase().as_slice(), before) {
            (b"SET", 0) => late(NIL),
            (b"GET", _) => bulk(theirs.as_bytes()),
            _ => raw("-ERR unexpected\r\n"),
        }
    });
    let store = fake.store();
    assert!(!store.insert_new("k", record(1)).unwrap());
    assert_eq!(fake.sent(), ["SET", "GET"]);
}

/// A removal whose answer was lost, the key then gone: it may have been this call or
/// another writer, so the outcome is an error saying so, never `false` (which would
/// tell a caller that won it lost) nor `true`. A swap to a new record in the same case
/// did not happen (its record would be there): `false`.
// covers: U5
#[test]
fn a_lost_removal_of_a_key_now_gone_is_an_unknown_outcome() {
    let fake = FakeRedis::start(|command, before| {
        match (command[0].to_ascii_uppercase().as_slice(), before) {
            // The removal: done, its answer late; then the key is absent.
            (b"EVALSHA", 0) => late(":1\r\n"),
            // The swap: the key was already absent, the first answer late.
            (b"EVALSHA", 2) => late(":0\r\n"),
            (b"EVALSHA", _) => raw(":0\r\n"),
            _ => raw("-ERR unexpected\r\n"),
        }
    });
    let store = fake.store();
    let error = store.compare_and_swap("k", &record(1), None).unwrap_err();
    assert!(!is_redis_error(&error), "{error:?}");
    assert_eq!(
        cause(&error),
        "redis: compare-and-swap failed after 2 attempts: the answer was lost and the key is gone, so whether this removal did it is unknown"
    );
    assert!(!store
        .compare_and_swap("k", &record(1), Some(record(2)))
        .unwrap());
    assert_eq!(fake.sent(), vec!["EVALSHA"; 4]);
}

/// A swap whose answer was lost and whose record is found in Redis with this call's
/// token did swap.
// covers: U5
#[test]
fn a_lost_swap_found_in_place_is_told_it_swapped() {
    let fake = FakeRedis::start(|command, before| {
        match (command[0].to_ascii_uppercase().as_slice(), before) {
            // EVALSHA sha 1 key expected new ttl: the script's answer when the key
            // holds what the lost attempt wrote.
            (b"EVALSHA", 0) => late(":1\r\n"),
            (b"EVALSHA", _) => bulk(&command[5]),
            _ => raw("-ERR unexpected\r\n"),
        }
    });
    let store = fake.store();
    assert!(store
        .compare_and_swap("k", &record(1), Some(record(2)))
        .unwrap());
    assert_eq!(fake.sent(), ["EVALSHA", "EVALSHA"]);
}

/// An insert's `SET` refused with an error that may pass (`LOADING`) is tried again,
/// reading first whether the last one landed, up to the configured attempts; refused
/// with one that will not (`OOM`), it is sent once.
// covers: R5
#[test]
fn an_insert_is_tried_again_only_on_errors_that_may_pass() {
    let fake = FakeRedis::start(|command, _| {
        match (
            command[0].to_ascii_uppercase().as_slice(),
            command[1].as_slice(),
        ) {
            (b"SET", b"test:loading") => raw("-LOADING Redis is loading the dataset in memory\r\n"),
            (b"SET", _) => raw("-OOM command not allowed when used memory > 'maxmemory'.\r\n"),
            (b"GET", _) => raw(NIL),
            _ => raw("-ERR unexpected\r\n"),
        }
    });
    let store = fake.store();
    let error = store.insert_new("loading", record(1)).unwrap_err();
    assert!(is_redis_error(&error), "{error:?}");
    assert_eq!(
        cause(&error),
        "redis: inserting a record failed after 3 attempts: the server could not answer or refused"
    );
    assert_eq!(fake.sent(), ["SET", "GET", "SET", "GET", "SET"]);
    let error = store.insert_new("full", record(1)).unwrap_err();
    assert!(is_redis_error(&error), "{error:?}");
    assert_eq!(
        cause(&error),
        "redis: inserting a record failed: the server could not answer or refused"
    );
    assert_eq!(fake.sent().len(), 6, "one SET more");
}

/// A Redis answering what these commands never return is an error naming the reply,
/// not a success, a panic or a retry.
// covers: R5
#[test]
fn a_redis_answering_garbage_is_an_error() {
    let fake = FakeRedis::start(|_, _| raw(":7\r\n"));
    let store = fake.store();
    let error = store.insert_new("k", record(1)).unwrap_err();
    assert_eq!(
        cause(&error),
        "redis: inserting a record failed: unexpected reply int(7)"
    );
    let error = store
        .compare_and_swap("k", &record(1), Some(record(2)))
        .unwrap_err();
    assert_eq!(
        cause(&error),
        "redis: compare-and-swap failed: unexpected reply int(7)"
    );
    // redis-rs takes a reply of the wrong type to a GET for a connection out of step
    // and reconnects: the read, harmless to repeat, is tried again.
    let error = store.get("k").unwrap_err();
    assert!(is_redis_error(&error), "{error:?}");
    assert_eq!(
        cause(&error),
        "redis: reading a record failed after 3 attempts: the server could not answer or refused"
    );
    assert_eq!(fake.sent(), ["SET", "EVALSHA", "GET", "GET", "GET"]);
}
