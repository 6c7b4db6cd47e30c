//! A timeline action in words, as "What happened" tells it.

use super::Action;
use crate::lang::{t, Lang};

impl Action {
    /// The action in English (the CLI's words).
    pub fn words(&self) -> String {
        self.words_in(Lang::En)
    }

    pub fn words_in(&self, lang: Lang) -> String {
        match self {
            Action::Crash { node } => t!(lang, "crash n{node}"),
            Action::Restart { node } => t!(lang, "restart n{node}"),
            Action::Pause { node } => t!(lang, "pause n{node}"),
            Action::Resume { node } => t!(lang, "resume n{node}"),
            Action::Partition { groups } => {
                let g: Vec<String> = groups
                    .iter()
                    .map(|g| {
                        g.iter()
                            .map(|n| format!("n{n}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect();
                t!(lang, "split the network into {}", g.join(" | "))
            }
            Action::Isolate { node } => t!(lang, "cut n{node} off from the other nodes"),
            Action::Cut { from, to } => t!(lang, "cut the link {from} → {to}"),
            Action::Heal { from, to } => t!(lang, "heal the link {from} → {to}"),
            Action::HealAll => t!(lang, "heal the whole network").into(),
            Action::SetRate { node, rate_ppm } => {
                let rate = (*rate_ppm as f64 / 1e6).to_string();
                let rate = if lang == Lang::Ru {
                    rate.replace('.', ",")
                } else {
                    rate
                };
                t!(lang, "set n{node}'s clock to run at {rate}× true time")
            }
            Action::Jump { node, ms } if *ms >= 0 => {
                t!(lang, "jump n{node}'s clock {ms} ms forward")
            }
            Action::Jump { node, ms } => t!(lang, "jump n{node}'s clock {} ms back", -ms),
            Action::ClientPause { client } => t!(lang, "pause client {client}"),
            Action::ClientResume { client } => t!(lang, "resume client {client}"),
            Action::ClientCrash { client } => t!(lang, "crash client {client}"),
            Action::ClientRestart { client } => t!(lang, "restart client {client}"),
            Action::ClientDisconnect { client } => t!(lang, "break client {client}'s connection"),
            Action::ClientReconnect { client } => t!(lang, "reconnect client {client}"),
            Action::ClientJump { client, ms } if *ms >= 0 => {
                t!(lang, "jump client {client}'s clock {ms} ms forward")
            }
            Action::ClientJump { client, ms } => {
                t!(lang, "jump client {client}'s clock {} ms back", -ms)
            }
            Action::ClientAcquire {
                client,
                key,
                lease_ms,
            } => t!(lang, "client {client} acquires {key} for {lease_ms} ms"),
            Action::ClientRelease { client, key } => t!(lang, "client {client} releases {key}"),
            Action::DuplicateExpire { key } => t!(
                lang,
                "the leader proposes its last Expire for {key} once more (a duplicated proposal)"
            ),
            Action::AddNode { node } => t!(lang, "add n{node} to the cluster (as a learner first)"),
            Action::RemoveNode { node } => t!(lang, "remove n{node} from the cluster"),
            Action::Calm => t!(
                lang,
                "calm: heal everything, restart and resume every node, clocks back to true"
            )
            .into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_injected_duplicate_expire_reads_as_words_not_json() {
        let a: Action = serde_json::from_str(r#"{"do":"duplicate_expire","key":"k"}"#).unwrap();
        assert_eq!(
            a.words(),
            "the leader proposes its last Expire for k once more (a duplicated proposal)"
        );
        let j: Action = serde_json::from_str(r#"{"do":"jump","node":1,"ms":-500}"#).unwrap();
        assert_eq!(j.words(), "jump n1's clock 500 ms back");
    }
}
