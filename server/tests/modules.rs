//! The shape of the code, read from its source with `syn`: no module of kizuna-core or of the
//! server depends on itself through others, no HTTP endpoint module imports another, and
//! storage is table access only (it knows neither LINE nor sessions). A module is a file; a
//! module's uses of its own ancestors or descendants (a route reaching `super::State`, `routes`
//! mounting its endpoints) are how Rust nests code, not dependencies between rules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every `.rs` file under `src` as its module path (`routes::chat`, `storage`; the crate root is
/// the empty path), binaries left out.
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                walk(&path, &[prefix, &[name]].concat(), out);
            } else if path.extension().is_some_and(|e| e == "rs") && name != "main" {
                let module = match name.as_str() {
                    "lib" | "mod" => prefix.to_vec(),
                    _ => [prefix, &[name]].concat(),
                };
                out.insert(module.join("::"), path);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, &[], &mut out);
    out
}

/// The paths a file names that start at `crate` or `super`, as written.
#[derive(Default)]
struct Paths(Vec<Vec<String>>);

impl Paths {
    fn tree(&mut self, prefix: Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                self.tree([prefix, vec![p.ident.to_string()]].concat(), &p.tree)
            }
            syn::UseTree::Name(n) => self.0.push([prefix, vec![n.ident.to_string()]].concat()),
            syn::UseTree::Rename(r) => self.0.push([prefix, vec![r.ident.to_string()]].concat()),
            syn::UseTree::Glob(_) => self.0.push(prefix),
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.tree(prefix.clone(), item);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.tree(Vec::new(), &item.tree);
    }
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        // Test code may use any module (a test of the ID token signs with the mock LINE).
        let is_test = item.attrs.iter().any(|a| {
            a.path().is_ident("cfg")
                && a.parse_args::<syn::Path>()
                    .is_ok_and(|p| p.is_ident("test"))
        });
        if !is_test {
            syn::visit::visit_item_mod(self, item);
        }
    }
    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.0
            .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, path);
    }
}

fn is_nested(a: &str, b: &str) -> bool {
    let inside = |inner: &str, outer: &str| {
        outer.is_empty() || inner == outer || inner.starts_with(&format!("{outer}::"))
    };
    inside(a, b) || inside(b, a)
}

/// Which modules each module uses (ancestors and descendants left out).
fn module_graph(src: &Path) -> Graph {
    let modules = modules(src);
    let mut graph = Graph::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut paths = Paths::default();
        paths.visit_file(&ast);
        let here: Vec<&str> = if module.is_empty() {
            Vec::new()
        } else {
            module.split("::").collect()
        };
        let mut uses = BTreeSet::new();
        for path in paths.0 {
            // Resolve `crate::…` and `super::…` to an absolute path.
            let mut absolute: Vec<String> = match path.first().map(String::as_str) {
                Some("crate") => Vec::new(),
                Some("super") => {
                    // A module's `super` is its parent, for a `mod.rs` file as for any other.
                    let ups = path.iter().take_while(|s| *s == "super").count();
                    here[..here.len().saturating_sub(ups)]
                        .iter()
                        .map(|s| s.to_string())
                        .collect()
                }
                _ => continue,
            };
            absolute.extend(
                path.iter()
                    .skip_while(|s| *s == "crate" || *s == "super")
                    .cloned(),
            );
            // The longest prefix that is a module.
            let target = (0..=absolute.len())
                .rev()
                .map(|n| absolute[..n].join("::"))
                .find(|candidate| modules.contains_key(candidate))
                .unwrap_or_default();
            if !is_nested(module, &target) {
                uses.insert(target);
            }
        }
        graph.insert(module.clone(), uses);
    }
    graph
}

/// A circle through `from`, if there is one: the modules along it.
fn circle_from(graph: &Graph, from: &str) -> Option<Vec<String>> {
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

fn circles(graph: &Graph) -> Vec<String> {
    graph
        .keys()
        .filter_map(|module| circle_from(graph, module))
        .map(|circle| circle.join(" -> "))
        .collect()
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
        .join("src")
}

#[test]
fn no_module_of_the_core_depends_on_itself_through_others() {
    let graph = module_graph(&crate_src("core"));
    assert!(
        graph["geo"].contains("catalogue"),
        "uses are read: {graph:#?}"
    );
    let found = circles(&graph);
    assert!(found.is_empty(), "module circles in the core: {found:#?}");
}

#[test]
fn no_module_of_the_server_depends_on_itself_through_others() {
    let graph = module_graph(&crate_src("server"));
    assert!(
        graph["routes::chat"].contains("chat"),
        "uses are read: {graph:#?}"
    );
    let found = circles(&graph);
    assert!(found.is_empty(), "module circles in the server: {found:#?}");
}

#[test]
fn no_endpoint_module_imports_another() {
    let graph = module_graph(&crate_src("server"));
    let endpoint = |m: &str| m.starts_with("routes::");
    let crossings: Vec<String> = graph
        .iter()
        .filter(|(module, _)| endpoint(module))
        .flat_map(|(module, uses)| {
            uses.iter()
                .filter(|used| endpoint(used))
                .map(move |used| format!("{module} -> {used}"))
        })
        .collect();
    assert!(
        graph.keys().filter(|m| endpoint(m)).count() > 10,
        "the endpoint modules were found"
    );
    assert!(
        crossings.is_empty(),
        "endpoint modules importing others: {crossings:#?}"
    );
}

#[test]
fn storage_knows_neither_line_nor_sessions() {
    let graph = module_graph(&crate_src("server"));
    let outside = |m: &str| {
        ["line", "identity", "routes"]
            .iter()
            .any(|top| m == *top || m.starts_with(&format!("{top}::")))
    };
    let crossings: Vec<String> = graph
        .iter()
        .filter(|(module, _)| *module == "storage" || module.starts_with("storage::"))
        .flat_map(|(module, uses)| {
            uses.iter()
                .filter(|used| outside(used))
                .map(move |used| format!("{module} -> {used}"))
        })
        .collect();
    assert!(
        crossings.is_empty(),
        "storage reaching past its tables: {crossings:#?}"
    );
}
