//! A timeline action in words, as "What happened" tells it.

use super::Action;

impl Action {
    pub fn words(&self) -> String {
        match self {
            Action::Crash { node } => format!("crash n{node}"),
            Action::Restart { node } => format!("restart n{node}"),
            Action::Pause { node } => format!("pause n{node}"),
            Action::Resume { node } => format!("resume n{node}"),
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
                format!("split the network into {}", g.join(" | "))
            }
            Action::Isolate { node } => format!("cut n{node} off from the other nodes"),
            Action::Cut { from, to } => format!("cut the link {from} → {to}"),
            Action::Heal { from, to } => format!("heal the link {from} → {to}"),
            Action::HealAll => "heal the whole network".into(),
            Action::SetRate { node, rate_ppm } => format!(
                "set n{node}'s clock to run at {}× true time",
                *rate_ppm as f64 / 1e6
            ),
            Action::Jump { node, ms } if *ms >= 0 => {
                format!("jump n{node}'s clock {ms} ms forward")
            }
            Action::Jump { node, ms } => format!("jump n{node}'s clock {} ms back", -ms),
            Action::ClientPause { client } => format!("pause client {client}"),
            Action::ClientResume { client } => format!("resume client {client}"),
            Action::ClientCrash { client } => format!("crash client {client}"),
            Action::ClientRestart { client } => format!("restart client {client}"),
            Action::ClientDisconnect { client } => format!("break client {client}'s connection"),
            Action::ClientReconnect { client } => format!("reconnect client {client}"),
            Action::ClientAcquire {
                client,
                key,
                lease_ms,
            } => format!("client {client} acquires {key} for {lease_ms} ms"),
            Action::ClientRelease { client, key } => format!("client {client} releases {key}"),
            Action::DuplicateExpire { key } => format!(
                "the leader proposes its last Expire for {key} once more (a duplicated proposal)"
            ),
            Action::Calm => {
                "calm: heal everything, restart and resume every node, clocks back to true".into()
            }
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
