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
    // A macro's arguments are tokens, not a syntax tree: `metrics::counter!(crate::x::NAME)` is a
    // use of `x` all the same, so `crate::a::b` runs inside them are read too.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        fn scan(tokens: proc_macro2::TokenStream, out: &mut Vec<Vec<String>>) {
            let tokens: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
            for (i, token) in tokens.iter().enumerate() {
                match token {
                    proc_macro2::TokenTree::Group(group) => scan(group.stream(), out),
                    proc_macro2::TokenTree::Ident(ident) if ident == "crate" => {
                        let mut path = vec!["crate".to_string()];
                        let mut j = i + 1;
                        while let [
                            proc_macro2::TokenTree::Punct(a),
                            proc_macro2::TokenTree::Punct(b),
                            proc_macro2::TokenTree::Ident(next),
                            ..,
                        ] = &tokens[j.min(tokens.len())..]
                        {
                            if a.as_char() != ':' || b.as_char() != ':' {
                                break;
                            }
                            path.push(next.to_string());
                            j += 3;
                        }
                        out.push(path);
                    }
                    _ => {}
                }
            }
        }
        scan(mac.tokens.clone(), &mut self.0);
        syn::visit::visit_macro(self, mac);
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
    assert!(
        graph["storage"].contains("metric_names"),
        "uses inside macro calls are read: {graph:#?}"
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

/// The modules of `graph` under `top` (itself included).
fn under<'a>(
    graph: &'a Graph,
    top: &'a str,
) -> impl Iterator<Item = (&'a String, &'a BTreeSet<String>)> {
    graph
        .iter()
        .filter(move |(m, _)| *m == top || m.starts_with(&format!("{top}::")))
}

fn is_in(module: &str, top: &str) -> bool {
    module == top || module.starts_with(&format!("{top}::"))
}

#[test]
fn no_route_reaches_storage() {
    let graph = module_graph(&crate_src("server"));
    let crossings: Vec<String> = under(&graph, "routes")
        .flat_map(|(module, uses)| {
            uses.iter()
                .filter(|used| is_in(used, "storage"))
                .map(move |used| format!("{module} -> {used}"))
        })
        .collect();
    assert!(
        graph["routes::chat"].contains("usecases::chat"),
        "uses are read: {graph:#?}"
    );
    assert!(
        crossings.is_empty(),
        "routes reading storage instead of calling a use-case: {crossings:#?}"
    );
}

#[test]
fn use_cases_take_neither_the_whole_state_nor_the_http_error() {
    let graph = module_graph(&crate_src("server"));
    let crossings: Vec<String> = under(&graph, "usecases")
        .flat_map(|(module, uses)| {
            uses.iter()
                .filter(|used| is_in(used, "state") || is_in(used, "error"))
                .map(move |used| format!("{module} -> {used}"))
        })
        .collect();
    assert!(
        under(&graph, "usecases").count() > 5,
        "the use-case modules were found"
    );
    assert!(
        crossings.is_empty(),
        "use-cases reaching the application state or the HTTP error: {crossings:#?}"
    );
}

/// sea-orm's names for reading and writing tables: queries, raw statements, row changes.
const TABLE_ACCESS: [&str; 9] = [
    "EntityTrait",
    "QueryFilter",
    "QuerySelect",
    "QueryOrder",
    "ActiveModelTrait",
    "ActiveValue",
    "Statement",
    "PaginatorTrait",
    "LoaderTrait",
];

#[test]
fn tables_are_reached_only_through_storage() {
    let mut inside = 0;
    let mut outside = Vec::new();
    for (module, file) in modules(&crate_src("server")) {
        // Test code builds its fixtures as it likes (as in `Paths`, a test module is left out).
        if module.ends_with("::tests") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut paths = Paths::default();
        paths.visit_file(&ast);
        let touches = paths.0.iter().any(|path| {
            path.first().is_some_and(|s| s == "sea_orm")
                && path.iter().any(|s| TABLE_ACCESS.contains(&s.as_str()))
        });
        match (touches, is_in(&module, "storage")) {
            (true, true) => inside += 1,
            (true, false) => outside.push(module),
            (false, _) => {}
        }
    }
    assert!(inside > 10, "storage's table access is found");
    assert!(
        outside.is_empty(),
        "table access outside storage: {outside:#?}"
    );
}

/// Every `.rs` file of the workspace's crates (core, the wasm crates, the server), tests and
/// examples included.
fn workspace_sources() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for krate in ["core", "wasm", "wasm-safety", "wasm-rules", "server"] {
        for part in ["src", "tests", "examples", "benches"] {
            let dir = root.join(krate).join(part);
            if dir.is_dir() {
                walk(&dir, &mut out);
            }
        }
    }
    out
}

#[test]
fn unsafe_rust_is_allowed_in_one_place_only_mains_malloc_setting() {
    // Built here so that this file does not name the lint itself: any attribute naming it (an
    // allow, an expect, a list) counts.
    let lint = ["unsafe", "_code"].concat();
    let mut allowed = Vec::new();
    for path in workspace_sources() {
        let text = std::fs::read_to_string(&path).unwrap();
        let n = text.matches(lint.as_str()).count();
        if n > 0 {
            let shown = path.components().rev().take(3).collect::<Vec<_>>();
            let shown: PathBuf = shown.into_iter().rev().collect();
            allowed.push((shown.display().to_string(), n));
        }
    }
    assert_eq!(
        allowed,
        vec![("server/src/main.rs".to_string(), 1)],
        "the workspace denies unsafe Rust; the one exception is main's mallopt"
    );
}
