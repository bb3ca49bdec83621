//! What the integration tests share: a scratch folder that is gone when the test
//! passes and kept when it fails (its path is in the panic's message), so a run of
//! the tests leaves nothing behind in the temporary folder but what explains a
//! failure.

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A fresh folder `ftw-<suite>-<pid>-<name>` under the temporary folder.
pub struct Scratch(PathBuf);

pub fn scratch(suite: &str, name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("ftw-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    Scratch(dir)
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept for the failure: {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
