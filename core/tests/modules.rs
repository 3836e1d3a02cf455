//! No two modules of kizuna-core depend on each other, directly or through others: each module's
//! `crate::…` uses (outside comments) are read from its source and the graph must be acyclic, so
//! every rule has one home that the rest builds on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "lib")
        .collect();
    let mut graph = BTreeMap::new();
    for module in &modules {
        let text = std::fs::read_to_string(src.join(format!("{module}.rs"))).unwrap();
        let mut uses = BTreeSet::new();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (at, _) in line.match_indices("crate::") {
                let rest = &line[at + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if modules.contains(&name) && name != *module {
                    uses.insert(name);
                }
            }
            // `use crate::{a, b::c}` names several modules at once.
            if let Some(group) = line.split("crate::{").nth(1) {
                for part in group.split([',', '}']) {
                    let name = part
                        .trim()
                        .split("::")
                        .next()
                        .unwrap_or_default()
                        .to_string();
                    if modules.contains(&name) && name != *module {
                        uses.insert(name);
                    }
                }
            }
        }
        graph.insert(module.clone(), uses);
    }
    graph
}

/// A circle through `from`, if there is one: the modules along it.
fn circle_from(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let mut stack = vec![(from.to_string(), vec![from.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((at, path)) = stack.pop() {
        for next in &graph[&at] {
            if next == from {
                return Some([path.clone(), vec![from.to_string()]].concat());
            }
            if seen.insert(next.clone()) {
                stack.push((next.clone(), [path.clone(), vec![next.clone()]].concat()));
            }
        }
    }
    None
}

#[test]
fn no_module_of_the_core_depends_on_itself_through_others() {
    let graph = module_graph();
    assert!(graph.len() > 15, "the modules were found: {graph:?}");
    assert!(
        graph["geo"].contains("catalogue"),
        "uses are read: {graph:?}"
    );
    let circles: Vec<String> = graph
        .keys()
        .filter_map(|module| circle_from(&graph, module))
        .map(|circle| circle.join(" -> "))
        .collect();
    assert!(circles.is_empty(), "module circles: {circles:#?}");
}
