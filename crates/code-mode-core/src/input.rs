//! exec input validation (`docs/surface.md`): `code`/`command`,
//! `language`, `restartSafe`, with the contract's exact messages.

use crate::config::{CodeModeConfig, Language};
use crate::messages;

/// One field of the raw input as the host read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Field {
    /// Missing, `undefined` or `null`: all mean absent.
    #[default]
    Absent,
    Str(String),
    Bool(bool),
    /// Any other JavaScript value.
    Other,
}

#[derive(Clone, Debug, Default)]
pub struct RawExecInput {
    pub code: Field,
    pub command: Field,
    pub language: Field,
    pub restart_safe: Field,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExecInput {
    pub code: String,
    pub language: Language,
    pub restart_safe: bool,
}

impl RawExecInput {
    pub fn validate(self, config: &CodeModeConfig) -> Result<ExecInput, String> {
        let code = source_field(self.code)?;
        let command = source_field(self.command)?;
        let code = match (code, command) {
            (Some(code), Some(command)) if code != command => {
                return Err(messages::CODE_AND_COMMAND_MISMATCH.to_owned());
            }
            (Some(code), _) | (None, Some(code)) => code,
            (None, None) => return Err(messages::CODE_REQUIRED.to_owned()),
        };
        let language = match self.language {
            Field::Absent => Language::Javascript,
            Field::Str(name) => {
                Language::parse(&name).ok_or_else(|| messages::BAD_LANGUAGE.to_owned())?
            }
            _ => return Err(messages::BAD_LANGUAGE.to_owned()),
        };
        let restart_safe = match self.restart_safe {
            Field::Absent => false,
            Field::Bool(value) => value,
            _ => return Err(messages::BAD_RESTART_SAFE.to_owned()),
        };
        if !config.allows(language) {
            return Err(messages::language_disabled(language.as_str()));
        }
        Ok(ExecInput {
            code,
            language,
            restart_safe,
        })
    }
}

/// Trimmed non-empty text, or absent; any other type is an error.
fn source_field(field: Field) -> Result<Option<String>, String> {
    match field {
        Field::Absent => Ok(None),
        Field::Str(text) => {
            let trimmed = text.trim();
            Ok((!trimmed.is_empty()).then(|| trimmed.to_owned()))
        }
        _ => Err(messages::CODE_REQUIRED.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(code: Field, command: Field) -> RawExecInput {
        RawExecInput {
            code,
            command,
            ..Default::default()
        }
    }

    fn s(text: &str) -> Field {
        Field::Str(text.to_owned())
    }

    #[test]
    fn code_and_command_alias() {
        let config = CodeModeConfig::default();
        assert_eq!(
            input(s(" return 1 "), Field::Absent)
                .validate(&config)
                .unwrap()
                .code,
            "return 1"
        );
        assert_eq!(
            input(Field::Absent, s("return 2"))
                .validate(&config)
                .unwrap()
                .code,
            "return 2"
        );
        assert_eq!(
            input(s("return 3"), s(" return 3"))
                .validate(&config)
                .unwrap()
                .code,
            "return 3"
        );
        assert_eq!(
            input(s("a"), s("b")).validate(&config).unwrap_err(),
            messages::CODE_AND_COMMAND_MISMATCH
        );
        for (code, command) in [
            (Field::Absent, Field::Absent),
            (s("  \n"), Field::Absent),
            (Field::Other, Field::Absent),
            (Field::Bool(true), s("x")),
        ] {
            assert_eq!(
                input(code, command).validate(&config).unwrap_err(),
                messages::CODE_REQUIRED
            );
        }
    }

    #[test]
    fn language_and_restart_safe() {
        let config = CodeModeConfig::default();
        let base = || input(s("return 1"), Field::Absent);
        let ts = RawExecInput {
            language: s("typescript"),
            ..base()
        }
        .validate(&config)
        .unwrap();
        assert_eq!(ts.language, Language::Typescript);
        for bad in [
            s("python"),
            s("TypeScript"),
            Field::Bool(true),
            Field::Other,
        ] {
            let err = RawExecInput {
                language: bad,
                ..base()
            }
            .validate(&config)
            .unwrap_err();
            assert_eq!(err, messages::BAD_LANGUAGE);
        }
        assert!(
            RawExecInput {
                restart_safe: Field::Bool(true),
                ..base()
            }
            .validate(&config)
            .unwrap()
            .restart_safe
        );
        for bad in [s("true"), Field::Other] {
            let err = RawExecInput {
                restart_safe: bad,
                ..base()
            }
            .validate(&config)
            .unwrap_err();
            assert_eq!(err, messages::BAD_RESTART_SAFE);
        }
        let js_only = CodeModeConfig {
            languages: vec![Language::Javascript],
            ..Default::default()
        };
        let err = RawExecInput {
            language: s("typescript"),
            ..base()
        }
        .validate(&js_only)
        .unwrap_err();
        assert_eq!(err, "code mode typescript input is disabled.");
    }
}
