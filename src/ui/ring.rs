//! The cluster drawing's geometry: where the nodes sit on the ring (3 to 7), the clients in a
//! column and the storage below them, how a directed link is offset so both directions show, and
//! a node's own drawing, wide or on a phone ([`Geom`]). Only numbers: `cluster.rs` draws.

use crate::model::text::num;
use crate::sim::World;

pub(super) const CX: f64 = 250.0;
pub(super) const CY: f64 = 215.0;
pub(super) const R: f64 = 150.0;

/// A node's drawing: its circle, its countdown ring and where its words sit. A phone's window
/// scales the whole drawing to about 0.6: there the nodes and their words are drawn larger, so
/// that a name, a role and a term read at 12 px or more.
pub(super) struct Geom {
    pub(super) node_r: f64,
    pub(super) arc_r: f64,
    pub(super) name_dy: f64,
    pub(super) role_dy: f64,
    pub(super) term_dy: f64,
    pub(super) clock_dy: f64,
    pub(super) vote_dy: f64,
    /// A role of more letters than this is condensed to fit inside the circle.
    pub(super) role_chars: usize,
    pub(super) view_h: u32,
}

pub(super) const WIDE: Geom = Geom {
    node_r: 36.0,
    arc_r: 43.0,
    name_dy: -14.0,
    role_dy: 1.0,
    term_dy: 15.0,
    clock_dy: 66.0,
    vote_dy: 80.0,
    role_chars: 9,
    view_h: 440,
};

pub(super) const NARROW: Geom = Geom {
    node_r: 50.0,
    arc_r: 57.0,
    name_dy: -19.0,
    role_dy: 5.0,
    term_dy: 27.0,
    clock_dy: 80.0,
    vote_dy: 99.0,
    role_chars: 7,
    view_h: 470,
};

/// Unit-circle points for 3 to 7 nodes, starting at the top, clockwise (no trigonometry in wasm).
pub(super) const RING: [&[(f64, f64)]; 5] = [
    &[(0.0, -1.0), (0.866, 0.5), (-0.866, 0.5)],
    &[(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)],
    &[
        (0.0, -1.0),
        (0.951, -0.309),
        (0.588, 0.809),
        (-0.588, 0.809),
        (-0.951, -0.309),
    ],
    &[
        (0.0, -1.0),
        (0.866, -0.5),
        (0.866, 0.5),
        (0.0, 1.0),
        (-0.866, 0.5),
        (-0.866, -0.5),
    ],
    &[
        (0.0, -1.0),
        (0.782, -0.623),
        (0.975, 0.223),
        (0.434, 0.901),
        (-0.434, 0.901),
        (-0.975, 0.223),
        (-0.782, -0.623),
    ],
];

pub(super) fn node_pos(i: usize, n: usize) -> (f64, f64) {
    let (x, y) = RING[n.clamp(3, 7) - 3][i % n.clamp(3, 7)];
    (CX + R * x, CY + R * y)
}

pub(super) fn client_pos(c: usize, count: usize) -> (f64, f64) {
    let span = 280.0;
    let y = if count <= 1 {
        CY
    } else {
        CY - span / 2.0 + c as f64 * span / (count - 1) as f64
    };
    (505.0, y - 20.0)
}

pub(super) const STORAGE_POS: (f64, f64) = (505.0, 405.0);

/// Where endpoint `e` is drawn; a directed link is offset to its left so both directions show.
pub(super) fn endpoint_pos(w: &World, e: usize) -> (f64, f64) {
    if e < w.node_count {
        node_pos(e, w.node_count)
    } else if let Some(c) = w.endpoint_client(e) {
        client_pos(c, w.clients.len())
    } else {
        STORAGE_POS
    }
}

pub(super) fn offset_line(a: (f64, f64), b: (f64, f64), off: f64) -> ((f64, f64), (f64, f64)) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (nx, ny) = (-dy / len * off, dx / len * off);
    ((a.0 + nx, a.1 + ny), (b.0 + nx, b.1 + ny))
}

/// A clickable band around a link (a polygon, so even a horizontal link has an area).
pub(super) fn hit_area(p: (f64, f64), q: (f64, f64)) -> String {
    let (a1, b1) = offset_line(p, q, 5.0);
    let (a2, b2) = offset_line(p, q, -5.0);
    format!(
        "{},{} {},{} {},{} {},{}",
        num(a1.0),
        num(a1.1),
        num(b1.0),
        num(b1.1),
        num(b2.0),
        num(b2.1),
        num(a2.0),
        num(a2.1)
    )
}
