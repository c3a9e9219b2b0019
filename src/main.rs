//! The `minimo` executable: runs the command line of `minimo::cli` on a thread with a large stack.

/// Stack of the thread that runs the command. Flattening and the function interpreter recurse
/// along the model (an `extends` chain, nested calls, deep expressions); a large stack lets
/// thousands of levels through, and the depth limits of each stage turn anything deeper into
/// a located error instead of a stack overflow.
const STACK_BYTES: usize = 512 << 20;

/// Flattening, index reduction and the symbolic derivatives build and drop many small
/// expression nodes; with the system allocator, `malloc`/`free` were a quarter of the time
/// before integration (benches/RESULTS.md). Not in WebAssembly (the playground has its own).
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    default_sigpipe();
    let code = std::thread::Builder::new()
        .name("minimo".into())
        .stack_size(STACK_BYTES)
        .spawn(minimo::cli::run)
        .map(|h| h.join().unwrap_or(101));
    match code {
        Ok(c) => std::process::exit(c),
        Err(e) => {
            eprintln!("error: cannot start the main thread: {e}");
            std::process::exit(1)
        }
    }
}

/// A closed pipe (`minimo simulate m.mo 2>&1 | head -3`) ends the process quietly, as it ends
/// other Unix tools: Rust starts with SIGPIPE ignored, so every later write would fail, and a
/// failed `eprintln!` panics.
#[cfg(unix)]
fn default_sigpipe() {
    // SAFETY: called first in `main`, before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn default_sigpipe() {}
