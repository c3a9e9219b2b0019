//! Libraries: the built-in `stdlib/` (compiled into the binary), `--lib` folders and files,
//! and the folders of `MODELICAPATH`. A top-level package is parsed the first time a name
//! refers to it. Package folders hold `package.mo` and optionally `package.order` (MLS 13.4).

use super::Flattener;
use super::classtree::ClassId;
use crate::diag::Diagnostic;
use crate::syntax::ast;
use std::collections::BTreeMap;
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

/// A folder in the real file system or in the embedded library.
#[derive(Clone)]
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
    fn is_package(&self) -> bool {
        self.read("package.mo").is_some()
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
        let file = self.sources.add(name, text.clone());
        let def = super::parse(&text, file)?;
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
        Ok(self.tree.add_file(def, parent))
    }

    /// Loads the top-level class `name` from the library path; `None` if it is not there.
    pub fn load_root(&mut self, name: &str) -> Option<ClassId> {
        let src = self.lib.roots.get(name)?.clone();
        // Only try once, whatever happens.
        self.lib.roots.remove(name);
        let r = match src {
            Source::File(p) => match std::fs::read_to_string(&p) {
                Ok(t) => self.load_text(p.display().to_string(), t, None).map(|_| ()),
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
                .load_package_dir(Folder::Real(p), name, None)
                .map(|_| ()),
            Source::EmbeddedDir(p) => self
                .load_package_dir(Folder::Embedded(p), name, None)
                .map(|_| ()),
        };
        if let Err(e) = r {
            self.lib.errors.extend(e);
        }
        self.tree.roots.get(name).copied()
    }

    fn load_package_dir(
        &mut self,
        dir: Folder,
        name: &str,
        parent: Option<ClassId>,
    ) -> Result<ClassId, Vec<Diagnostic>> {
        let Some((fname, text)) = dir.read("package.mo") else {
            return Err(vec![Diagnostic::error(
                crate::diag::Span::DUMMY,
                format!("package `{name}`: package.mo not found"),
            )]);
        };
        let ids = self.load_text(fname.clone(), text, parent)?;
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
        let mut errors = Vec::new();
        for (entry, is_dir) in entries {
            if is_dir {
                let sub = dir.join(&entry);
                if sub.is_package()
                    && let Err(e) = self.load_package_dir(sub, &entry, Some(pkg))
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

    /// Loads a package folder given on the command line (as a model file).
    pub fn load_user_dir(&mut self, dir: &Path) -> Result<Vec<ClassId>, Vec<Diagnostic>> {
        let name = package_name(dir).unwrap_or_default();
        self.load_package_dir(Folder::Real(dir.to_path_buf()), &name, None)
            .map(|id| vec![id])
    }
}
