//! Libraries: the built-in `stdlib/` (compiled into the binary), `--lib` folders and files,
//! and the folders of `MODELICAPATH`. Package folders hold `package.mo` and optionally
//! `package.order` (MLS 13.4).
//!
//! Loading is lazy at the granularity of files: a top-level package is indexed the first time
//! a name refers to it, and then only its `package.mo` is parsed. Each other entry of a package
//! folder (a `.mo` file or a sub-package folder) is recorded as *pending* under its name and
//! parsed the first time lookup asks the package for that name (`Flattener::child_class`). A
//! model that uses one Rotational component therefore parses a few dozen files of the MSL, not
//! its 2000, and a syntax error in a file nobody refers to is never seen.
//!
//! Inside a library file, the long classes written directly in its top-level class are
//! deferred the same way (`syntax::skeleton` finds them without parsing): the file is parsed
//! with them blanked out, and each is parsed when its name is first looked up. Most of
//! `Modelica/Math/package.mo` is never parsed by a model that calls `Modelica.Math.sin`.

use super::Flattener;
use super::classtree::ClassId;
use crate::diag::{Diagnostic, FileId};
use crate::syntax::ast;
use crate::syntax::skeleton::{self, NestedClass};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/stdlib_files.rs"));
}

/// Where a top-level class comes from.
#[derive(Clone, Debug)]
enum Source {
    /// A folder of the built-in library (path relative to `stdlib/`).
    EmbeddedDir(String),
    EmbeddedFile(String),
    Dir(PathBuf),
    File(PathBuf),
}

#[derive(Debug, Default)]
pub struct Library {
    roots: BTreeMap<String, Source>,
    /// Entries of loaded package folders not parsed yet: package -> entry name -> where.
    pending: HashMap<ClassId, BTreeMap<String, Pending>>,
    /// Problems met while loading library files (reported with the result).
    pub errors: Vec<Diagnostic>,
}

impl Library {
    /// Indexes `--lib` paths, then `MODELICAPATH`, then the built-in library (first wins).
    pub fn new(libs: &[PathBuf], modelicapath: Option<&str>) -> Library {
        let mut lib = Library::default();
        for l in libs {
            lib.index_path(l, true);
        }
        if let Some(mp) = modelicapath {
            let sep = if mp.contains(';') { ';' } else { ':' };
            for d in mp.split(sep).filter(|s| !s.is_empty()) {
                lib.index_path(Path::new(d), false);
            }
        }
        lib.index_embedded();
        lib
    }

    fn add(&mut self, name: String, s: Source) {
        self.roots.entry(name).or_insert(s);
    }

    /// `path` is a library file, a package folder, or (for path folders) a folder of them.
    fn index_path(&mut self, path: &Path, explicit: bool) {
        if path.is_file() {
            if let Some(stem) = path.file_stem() {
                self.add(
                    stem.to_string_lossy().to_string(),
                    Source::File(path.to_path_buf()),
                );
            }
            return;
        }
        if explicit && path.join("package.mo").is_file() {
            if let Some(name) = package_name(path) {
                self.add(name, Source::Dir(path.to_path_buf()));
            }
            return;
        }
        let Ok(entries) = std::fs::read_dir(path) else {
            if explicit {
                self.errors.push(Diagnostic::error(
                    crate::diag::Span::DUMMY,
                    format!("library `{}` not found", path.display()),
                ));
            }
            return;
        };
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            let name = e
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            if e.is_dir() && e.join("package.mo").is_file() {
                // `Modelica 4.0.0` folders: the package name is before the space.
                let pname = name.split(' ').next().unwrap_or(&name).to_string();
                self.add(pname, Source::Dir(e));
            } else if e.is_file() && name.ends_with(".mo") {
                self.add(name.trim_end_matches(".mo").to_string(), Source::File(e));
            }
        }
    }

    fn index_embedded(&mut self) {
        for (path, _) in embedded::STDLIB {
            let mut parts = path.split('/');
            let first = parts.next().unwrap_or_default();
            if parts.next().is_some() {
                if embedded_file(&format!("{first}/package.mo")).is_some() {
                    self.add(first.to_string(), Source::EmbeddedDir(first.to_string()));
                }
            } else if let Some(stem) = first.strip_suffix(".mo") {
                self.add(stem.to_string(), Source::EmbeddedFile(first.to_string()));
            }
        }
    }

    pub fn root_names(&self) -> impl Iterator<Item = String> + '_ {
        self.roots.keys().cloned()
    }
}

fn package_name(dir: &Path) -> Option<String> {
    let n = dir
        .canonicalize()
        .ok()?
        .file_name()?
        .to_string_lossy()
        .to_string();
    Some(n.split(' ').next().unwrap_or(&n).to_string())
}

fn embedded_file(path: &str) -> Option<&'static str> {
    embedded::STDLIB
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, t)| *t)
}

/// Entries of an embedded folder: (name, is folder).
fn embedded_entries(dir: &str) -> Vec<(String, bool)> {
    let prefix = format!("{dir}/");
    let mut out: Vec<(String, bool)> = Vec::new();
    for (p, _) in embedded::STDLIB {
        if let Some(rest) = p.strip_prefix(&prefix) {
            let (name, is_dir) = match rest.split_once('/') {
                Some((d, _)) => (d.to_string(), true),
                None => (rest.to_string(), false),
            };
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, is_dir));
            }
        }
    }
    out
}

/// Parses `region` of `file` (the whole text, or one deferred class). With `lazy`, the long
/// classes written directly in its top-level classes are blanked and returned, to be parsed on
/// first lookup.
fn parse_outline(
    text: &str,
    file: FileId,
    region: Range<usize>,
    lazy: bool,
) -> Result<(ast::StoredDefinition, Vec<NestedClass>), Vec<Diagnostic>> {
    let nested = if lazy {
        skeleton::nested_classes(text, region.clone()).unwrap_or_default()
    } else {
        Vec::new()
    };
    let ranges: Vec<Range<usize>> = nested.iter().map(|n| n.range.clone()).collect();
    let outline = if ranges.is_empty() {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(skeleton::blank(text, &ranges))
    };
    let def = if region == (0..text.len()) {
        super::parse(&outline, file)?
    } else {
        crate::syntax::parse_region(&outline, file, region)?
    };
    Ok((def, nested))
}

/// A class known by name whose text has not been parsed yet.
#[derive(Clone, Debug)]
enum Pending {
    /// An entry of a package folder.
    Entry {
        folder: Folder,
        /// The file name (`Inertia.mo`) or sub-folder name.
        entry: String,
        is_dir: bool,
    },
    /// A class written inside a file already loaded, left out of that file's first parse.
    Nested {
        file: FileId,
        range: Range<usize>,
        protected: bool,
    },
}

/// A folder in the real file system or in the embedded library.
#[derive(Clone, Debug)]
enum Folder {
    Real(PathBuf),
    Embedded(String),
}

impl Folder {
    fn join(&self, name: &str) -> Folder {
        match self {
            Folder::Real(p) => Folder::Real(p.join(name)),
            Folder::Embedded(p) => Folder::Embedded(format!("{p}/{name}")),
        }
    }
    fn read(&self, name: &str) -> Option<(String, String)> {
        match self {
            Folder::Real(p) => {
                let f = p.join(name);
                std::fs::read_to_string(&f)
                    .ok()
                    .map(|t| (f.display().to_string(), t))
            }
            Folder::Embedded(p) => {
                let f = format!("{p}/{name}");
                embedded_file(&f).map(|t| (format!("<stdlib>/{f}"), t.to_string()))
            }
        }
    }
    fn entries(&self) -> Vec<(String, bool)> {
        match self {
            Folder::Real(p) => {
                let mut v: Vec<(String, bool)> = std::fs::read_dir(p)
                    .map(|rd| {
                        rd.flatten()
                            .map(|e| {
                                (
                                    e.file_name().to_string_lossy().to_string(),
                                    e.path().is_dir(),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                v.sort();
                v
            }
            Folder::Embedded(p) => {
                let mut v = embedded_entries(p);
                v.sort();
                v
            }
        }
    }
    /// Whether `path` (a file name as given by the user) is this folder's file `file`.
    fn is_file_named(&self, file: &str, path: &str) -> bool {
        match self {
            Folder::Real(p) => {
                let canon = |q: &Path| std::fs::canonicalize(q).ok();
                let mine = canon(&p.join(file));
                mine.is_some() && mine == canon(Path::new(path))
            }
            Folder::Embedded(_) => false,
        }
    }
    fn is_embedded(&self) -> bool {
        matches!(self, Folder::Embedded(_))
    }
    fn is_package(&self) -> bool {
        match self {
            Folder::Real(p) => p.join("package.mo").is_file(),
            Folder::Embedded(p) => embedded_file(&format!("{p}/package.mo")).is_some(),
        }
    }
}

impl Flattener<'_> {
    /// Parses one file and adds its classes under its `within` package (or `parent`).
    pub fn load_text(
        &mut self,
        name: String,
        text: String,
        parent: Option<ClassId>,
    ) -> Result<Vec<ClassId>, Vec<Diagnostic>> {
        self.load_file_text(name, text, parent, false)
    }

    /// [`Self::load_text`]; with `lazy` (a library file), the classes written directly in
    /// the file's top-level classes are recorded as pending instead of parsed.
    fn load_file_text(
        &mut self,
        name: String,
        text: String,
        parent: Option<ClassId>,
        lazy: bool,
    ) -> Result<Vec<ClassId>, Vec<Diagnostic>> {
        let file = self.sources.add(name.clone(), text);
        let Some(text) = self.sources.get(file).map(|f| f.text.clone()) else {
            return Ok(Vec::new());
        };
        let (def, nested) = parse_outline(&text, file, 0..text.len(), lazy)?;
        let parent = match (parent, &def.within) {
            (Some(p), _) => Some(p),
            // A `within` package that is not loaded: the classes stay at the top level (the
            // file can still be checked and flattened on its own).
            (None, Some(ast::Within { name: Some(w), .. })) => {
                let path: Vec<&str> = w.parts.iter().map(|p| p.name.as_str()).collect();
                self.resolve_global(&path)
            }
            _ => None,
        };
        let ids = self.tree.add_file(def, parent);
        self.register_nested(file, &ids, nested);
        self.take_place_of_library_entries(&name, &ids, parent);
        Ok(ids)
    }

    /// Records the classes `nested` of `file` as pending under their owners, the classes `ids`
    /// just added.
    fn register_nested(&mut self, file: FileId, ids: &[ClassId], nested: Vec<NestedClass>) {
        for n in nested {
            let Some(&id) = ids.iter().find(|&&i| self.tree.get(i).name == n.owner) else {
                continue;
            };
            if !self.tree.get(id).children.contains_key(&n.name) {
                let p = Pending::Nested {
                    file,
                    range: n.range,
                    protected: n.protected,
                };
                self.lib
                    .pending
                    .entry(id)
                    .or_default()
                    .entry(n.name)
                    .or_insert(p);
            }
        }
    }

    /// A class loaded from a user file inside a library package (`within P;` in a copy of one
    /// of P's files) takes the place of the library's own class of that name.
    fn take_place_of_library_entries(
        &mut self,
        name: &str,
        ids: &[ClassId],
        parent: Option<ClassId>,
    ) {
        let Some(p) = parent else { return };
        let Some(pend) = self.lib.pending.get_mut(&p) else {
            return;
        };
        let mut replaced = Vec::new();
        for &id in ids {
            if let Some(e) = pend.remove(&self.tree.get(id).name) {
                replaced.push((id, e));
            }
        }
        // When the user file *is* the `package.mo` of that library folder (the MSL runner
        // passes `Modelica/Blocks/package.mo`), the folder's other files still belong to the
        // package: record them as pending under the class just loaded.
        for (id, e) in replaced {
            if let Pending::Entry {
                folder,
                entry,
                is_dir: true,
            } = e
                && folder.join(&entry).is_file_named("package.mo", name)
            {
                self.register_pending(&folder.join(&entry), id);
            }
        }
    }

    /// Parses a deferred class of an already loaded file and adds it under `parent`.
    fn load_nested(
        &mut self,
        file: FileId,
        range: Range<usize>,
        protected: bool,
        parent: ClassId,
    ) -> Result<(), Vec<Diagnostic>> {
        let Some(text) = self.sources.get(file).map(|f| f.text.clone()) else {
            return Ok(());
        };
        let (def, nested) = parse_outline(&text, file, range, true)?;
        let ids = self.tree.add_file(def, Some(parent));
        for &id in &ids {
            self.tree.set_protected(id, protected);
        }
        self.register_nested(file, &ids, nested);
        Ok(())
    }

    /// The class `name` defined directly in `class`, parsing its file first if it is a pending
    /// entry of a library package folder.
    pub fn child_class(&mut self, class: ClassId, name: &str) -> Option<ClassId> {
        if let Some(c) = self.tree.get(class).children.get(name) {
            return Some(*c);
        }
        let p = self.lib.pending.get_mut(&class)?.remove(name)?;
        self.load_entry(&p, class);
        self.tree.get(class).children.get(name).copied()
    }

    /// Names of the pending (not yet parsed) classes of `class`, for hints.
    pub fn pending_names(&self, class: ClassId) -> Vec<String> {
        self.lib
            .pending
            .get(&class)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The pending (not yet parsed) classes of every package: the folder structure tells
    /// their names without parsing anything (for "did you mean" hints).
    pub fn pending_by_package(&self) -> Vec<(ClassId, Vec<String>)> {
        let mut out: Vec<(ClassId, Vec<String>)> = self
            .lib
            .pending
            .iter()
            .map(|(&p, m)| (p, m.keys().cloned().collect()))
            .collect();
        out.sort();
        out
    }

    /// Parses every pending file of the built-in library (small, and the likeliest home of a
    /// class a "did you mean" hint should name); libraries on disk stay lazy.
    pub fn load_pending_builtin(&mut self) {
        loop {
            let mut todo: Vec<(ClassId, String, Pending)> = Vec::new();
            for (&pkg, m) in &self.lib.pending {
                for (name, p) in m {
                    if matches!(
                        p,
                        Pending::Entry {
                            folder: Folder::Embedded(_),
                            ..
                        }
                    ) {
                        todo.push((pkg, name.clone(), p.clone()));
                    }
                }
            }
            if todo.is_empty() {
                return;
            }
            todo.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
            for (pkg, name, p) in todo {
                if let Some(m) = self.lib.pending.get_mut(&pkg) {
                    m.remove(&name);
                }
                self.load_entry(&p, pkg);
            }
        }
    }

    fn load_entry(&mut self, p: &Pending, parent: ClassId) {
        let r = match p {
            Pending::Entry {
                folder,
                entry,
                is_dir: true,
            } => self
                .load_package_dir(folder.join(entry), entry, Some(parent), true)
                .map(|_| ()),
            Pending::Entry { folder, entry, .. } => match folder.read(entry) {
                Some((f, t)) => self
                    .load_file_text(f, t, Some(parent), !folder.is_embedded())
                    .map(|_| ()),
                None => Ok(()),
            },
            Pending::Nested {
                file,
                range,
                protected,
            } => self.load_nested(*file, range.clone(), *protected, parent),
        };
        if let Err(e) = r {
            self.lib.errors.extend(e);
        }
    }

    /// Loads the top-level class `name` from the library path; `None` if it is not there.
    pub fn load_root(&mut self, name: &str) -> Option<ClassId> {
        let src = self.lib.roots.get(name)?.clone();
        // Only try once, whatever happens.
        self.lib.roots.remove(name);
        let r = match src {
            Source::File(p) => match std::fs::read_to_string(&p) {
                Ok(t) => self
                    .load_file_text(p.display().to_string(), t, None, true)
                    .map(|_| ()),
                Err(e) => Err(vec![Diagnostic::error(
                    crate::diag::Span::DUMMY,
                    format!("cannot read `{}`: {e}", p.display()),
                )]),
            },
            Source::EmbeddedFile(p) => {
                let t = embedded_file(&p).unwrap_or_default().to_string();
                self.load_text(format!("<stdlib>/{p}"), t, None).map(|_| ())
            }
            Source::Dir(p) => self
                .load_package_dir(Folder::Real(p), name, None, true)
                .map(|_| ()),
            Source::EmbeddedDir(p) => self
                .load_package_dir(Folder::Embedded(p), name, None, true)
                .map(|_| ()),
        };
        if let Err(e) = r {
            self.lib.errors.extend(e);
        }
        self.tree.roots.get(name).copied()
    }

    /// Loads a package folder's `package.mo`; its other entries are parsed now, or, when
    /// `lazy`, recorded as pending and parsed on first lookup.
    fn load_package_dir(
        &mut self,
        dir: Folder,
        name: &str,
        parent: Option<ClassId>,
        lazy: bool,
    ) -> Result<ClassId, Vec<Diagnostic>> {
        let Some((fname, text)) = dir.read("package.mo") else {
            return Err(vec![Diagnostic::error(
                crate::diag::Span::DUMMY,
                format!("package `{name}`: package.mo not found"),
            )]);
        };
        let in_files = lazy && !dir.is_embedded();
        let ids = self.load_file_text(fname.clone(), text, parent, in_files)?;
        let Some(&pkg) = ids.iter().find(|id| self.tree.get(**id).name == name) else {
            return Err(vec![Diagnostic::error(
                crate::diag::Span::DUMMY,
                format!("`{fname}` does not define package `{name}`"),
            )]);
        };
        // package.order gives the order; files it does not list follow alphabetically.
        let mut entries = dir.entries();
        if let Some((_, order)) = dir.read("package.order") {
            let order: Vec<&str> = order
                .lines()
                .map(|l| l.trim())
                .filter(|l| !l.is_empty())
                .collect();
            let pos = |n: &str| {
                order
                    .iter()
                    .position(|o| *o == n.trim_end_matches(".mo"))
                    .unwrap_or(usize::MAX)
            };
            entries.sort_by_key(|(n, _)| (pos(n), n.clone()));
        }
        if lazy {
            self.register_pending_entries(&dir, pkg, entries);
            return Ok(pkg);
        }
        let mut errors = Vec::new();
        for (entry, is_dir) in entries {
            if is_dir {
                let sub = dir.join(&entry);
                if sub.is_package()
                    && let Err(e) = self.load_package_dir(sub, &entry, Some(pkg), false)
                {
                    errors.extend(e);
                }
            } else if entry.ends_with(".mo")
                && entry != "package.mo"
                && let Some((f, t)) = dir.read(&entry)
                && let Err(e) = self.load_text(f, t, Some(pkg))
            {
                errors.extend(e);
            }
        }
        super::ok_or_errors(pkg, errors)
    }

    /// Records every entry of the package folder `dir` as pending under `pkg`.
    fn register_pending(&mut self, dir: &Folder, pkg: ClassId) {
        let entries = dir.entries();
        self.register_pending_entries(dir, pkg, entries);
    }

    /// Records `entries` of the package folder `dir` (its `.mo` files and sub-package
    /// folders, except `package.mo` and classes `pkg` already defines) as pending under `pkg`.
    fn register_pending_entries(
        &mut self,
        dir: &Folder,
        pkg: ClassId,
        entries: Vec<(String, bool)>,
    ) {
        for (entry, is_dir) in entries {
            let pend = if is_dir {
                dir.join(&entry).is_package().then(|| entry.clone())
            } else {
                entry
                    .strip_suffix(".mo")
                    .filter(|n| *n != "package")
                    .map(str::to_string)
            };
            if let Some(cname) = pend
                && !self.tree.get(pkg).children.contains_key(&cname)
            {
                let p = Pending::Entry {
                    folder: dir.clone(),
                    entry,
                    is_dir,
                };
                self.lib
                    .pending
                    .entry(pkg)
                    .or_default()
                    .entry(cname)
                    .or_insert(p);
            }
        }
    }

    /// Loads a package folder given on the command line (as a model file): whole, or, with
    /// `lazy` (a model to simulate is named), like a library.
    pub fn load_user_dir(
        &mut self,
        dir: &Path,
        lazy: bool,
    ) -> Result<Vec<ClassId>, Vec<Diagnostic>> {
        let name = package_name(dir).unwrap_or_default();
        self.load_package_dir(Folder::Real(dir.to_path_buf()), &name, None, lazy)
            .map(|id| vec![id])
    }

    /// Parses the classes written directly in `class` that were deferred; whether there were
    /// any.
    pub fn load_pending_children(&mut self, class: ClassId) -> bool {
        let Some(m) = self.lib.pending.get(&class) else {
            return false;
        };
        let nested: Vec<String> = m
            .iter()
            .filter(|(_, p)| matches!(p, Pending::Nested { .. }))
            .map(|(n, _)| n.clone())
            .collect();
        let any = !nested.is_empty();
        for n in nested {
            self.child_class(class, &n);
        }
        any
    }

    /// Parses every pending class under `class`, recursively (for listings of all models).
    pub fn load_all_pending(&mut self, class: ClassId) {
        let names = self.pending_names(class);
        for n in names {
            self.child_class(class, &n);
        }
        for ch in self.tree.get(class).child_order.clone() {
            self.load_all_pending(ch);
        }
    }
}
