//! The wasm entry: a panic hook that shows an error panel (never a blank page), then the app.

#[cfg(target_arch = "wasm32")]
fn main() {
    // Yew's renderer replaces a hook set with std::panic::set_hook; this one it keeps.
    yew::set_custom_panic_hook(Box::new(|info| {
        let msg = info.to_string();
        web_sys::console::error_1(&msg.clone().into());
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            if let Some(body) = doc.body() {
                let panel = doc.create_element("div").expect("create element");
                panel.set_id("panic");
                panel.set_attribute("role", "alert").ok();
                let text = format!(
                    "raftlock stopped on an internal error. Reload the page to start again. Details: {msg}"
                );
                panel.set_text_content(Some(&text));
                let reload = doc.create_element("button").expect("create element");
                reload.set_text_content(Some("Reload"));
                reload.set_attribute("onclick", "location.reload()").ok();
                panel.append_child(&reload).ok();
                body.prepend_with_node_1(&panel).ok();
            }
        }
    }));
    // Without a window (loaded in a worker) there is no page to draw.
    if web_sys::window().is_none() {
        return;
    }
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"))
        .expect("index.html has <div id=\"app\">");
    // A page in Russian waits for its texts (index.html started fetching them with the wasm).
    use raftlock::ui::{app, effects};
    if effects::document_lang() == raftlock::lang::Lang::Ru && !raftlock::lang::russian_ready() {
        wasm_bindgen_futures::spawn_local(async move {
            let russian = Some(effects::russian_texts().await);
            yew::Renderer::<app::App>::with_root_and_props(root, app::AppProps { russian })
                .render();
        });
    } else {
        yew::Renderer::<app::App>::with_root(root).render();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("raftlock-web is the browser app: build and serve it with `make serve` (Trunk). The native CLI is `raftlock`.");
}
