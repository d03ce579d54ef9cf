//! The Zed extension of ctxls: it starts `ctxls serve`, found on the PATH
//! of the worktree's shell, for the languages extension.toml names.

use zed_extension_api::{self as zed, LanguageServerId, Result};

struct Ctxls;

impl zed::Extension for Ctxls {
    fn new() -> Self {
        Ctxls
    }

    fn language_server_command(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let command = worktree.which("ctxls").ok_or_else(|| {
            "ctxls is not on PATH: install it (npm install -g ctxls, or a release archive) and restart Zed"
                .to_string()
        })?;
        Ok(zed::Command {
            command,
            args: vec!["serve".to_string()],
            env: worktree.shell_env(),
        })
    }
}

zed::register_extension!(Ctxls);
