//! A lock command's words, in one place: its name in the trace and the page's styles, the
//! seed's way of writing it, and its fields as a trace line carries them (written by the world,
//! read back by `raftlock check`). A new command adds its words here.

use super::{Key, LockOp, Token};
use crate::lang::{both, Text};

/// A command's fields as a trace line's `cmd` carries them: `op`, and the `key`, `lease_ms` and
/// `token` it has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceFields<'a> {
    pub op: &'static str,
    pub key: &'a Key,
    pub lease_ms: Option<u64>,
    pub token: Option<Token>,
}

impl LockOp {
    pub fn key(&self) -> &str {
        match self {
            LockOp::Grant { key, .. }
            | LockOp::Release { key, .. }
            | LockOp::Expire { key, .. } => key,
        }
    }

    /// The command's name in the trace (`cmd.op`) and in the page's styles: `grant`, `release`,
    /// `expire`; with [`LockOp::name_of`], `noop` for an entry without one.
    pub fn name(&self) -> &'static str {
        match self {
            LockOp::Grant { .. } => "grant",
            LockOp::Release { .. } => "release",
            LockOp::Expire { .. } => "expire",
        }
    }

    /// The name of an entry's command, `noop` for a Raft no-op.
    pub fn name_of(op: Option<&LockOp>) -> &'static str {
        op.map_or("noop", LockOp::name)
    }

    /// As the seed writes it: `Grant{k, 1500 ms}`, `Release{k}`, `Expire{k, 4}`.
    pub fn describe(&self) -> String {
        match self {
            LockOp::Grant { key, lease_ms } => format!("Grant{{{key}, {lease_ms} ms}}"),
            LockOp::Release { key, token: None } => format!("Release{{{key}}}"),
            LockOp::Release {
                key,
                token: Some(t),
            } => format!("Release{{{key}, {t}}}"),
            LockOp::Expire { key, token } => format!("Expire{{{key}, {token}}}"),
        }
    }

    /// Its fields as a trace line carries them.
    pub fn trace_fields(&self) -> TraceFields<'_> {
        let (key, lease_ms, token) = match self {
            LockOp::Grant { key, lease_ms } => (key, Some(*lease_ms), None),
            LockOp::Release { key, token } => (key, None, *token),
            LockOp::Expire { key, token } => (key, None, Some(*token)),
        };
        TraceFields {
            op: self.name(),
            key,
            lease_ms,
            token,
        }
    }

    /// The command a trace line's `cmd` names (`op` other than `noop`), or what it lacks: the
    /// inverse of [`LockOp::trace_fields`].
    pub fn from_trace(
        op: &str,
        key: Option<&str>,
        lease_ms: Option<u64>,
        token: Option<Token>,
    ) -> Result<LockOp, Text> {
        let key = || {
            key.map(Key::from)
                .ok_or_else(|| both!("{} without a key", op))
        };
        Ok(match op {
            "grant" => LockOp::Grant {
                key: key()?,
                lease_ms: lease_ms.ok_or_else(|| both!("grant without lease_ms"))?,
            },
            "release" => LockOp::Release { key: key()?, token },
            "expire" => LockOp::Expire {
                key: key()?,
                token: token.ok_or_else(|| both!("expire without a token"))?,
            },
            other => return Err(both!("unknown command \"{other}\"")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_reads_back_from_its_trace_fields() {
        for op in [
            LockOp::Grant {
                key: "k".into(),
                lease_ms: 1500,
            },
            LockOp::Release {
                key: "k".into(),
                token: None,
            },
            LockOp::Release {
                key: "k".into(),
                token: Some(4),
            },
            LockOp::Expire {
                key: "k".into(),
                token: 4,
            },
        ] {
            let f = op.trace_fields();
            let back = LockOp::from_trace(f.op, Some(f.key), f.lease_ms, f.token);
            assert_eq!(back.ok(), Some(op.clone()), "{}", op.describe());
        }
        assert_eq!(LockOp::name_of(None), "noop");
        assert!(LockOp::from_trace("expire", Some("k"), None, None).is_err());
        assert!(LockOp::from_trace("lease", Some("k"), None, None).is_err());
    }
}
