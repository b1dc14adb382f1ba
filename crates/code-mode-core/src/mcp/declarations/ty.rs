//! A rendered TypeScript type and how it combines: unions, intersections
//! and array elements, parenthesised where precedence needs it.

use std::collections::HashSet;

/// How a type binds when it is put inside another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prec {
    Atom,
    Intersection,
    Union,
}

/// A rendered type.
#[derive(Clone, Debug)]
pub struct Ty {
    pub text: String,
    pub prec: Prec,
}

impl Ty {
    pub fn atom(text: impl Into<String>) -> Ty {
        Ty {
            text: text.into(),
            prec: Prec::Atom,
        }
    }

    pub fn unknown() -> Ty {
        Ty::atom("unknown")
    }

    pub fn is_unknown(&self) -> bool {
        self.text == "unknown"
    }

    /// As an array element: `T[]`, `(A | B)[]`.
    pub fn array(&self) -> Ty {
        match self.prec {
            Prec::Atom => Ty::atom(format!("{}[]", self.text)),
            _ => Ty::atom(format!("({})[]", self.text)),
        }
    }

    /// `A | B`; `never` members drop out, an `unknown` member absorbs the
    /// rest, repeated members appear once.
    pub fn union(members: Vec<Ty>) -> Ty {
        let mut kept: Vec<Ty> = Vec::new();
        let mut seen = HashSet::new();
        for member in members {
            if member.is_unknown() {
                return Ty::unknown();
            }
            if member.text != "never" && seen.insert(member.text.clone()) {
                kept.push(member);
            }
        }
        if kept.len() < 2 {
            return kept.pop().unwrap_or_else(|| Ty::atom("never"));
        }
        let texts: Vec<String> = kept
            .into_iter()
            .map(|member| match member.prec {
                Prec::Intersection => format!("({})", member.text),
                _ => member.text,
            })
            .collect();
        Ty {
            text: texts.join(" | "),
            prec: Prec::Union,
        }
    }

    /// `A & B`; `unknown` members drop out.
    pub fn intersection(members: Vec<Ty>) -> Ty {
        let mut kept: Vec<Ty> = Vec::new();
        let mut seen = HashSet::new();
        for member in members.into_iter().filter(|m| !m.is_unknown()) {
            if seen.insert(member.text.clone()) {
                kept.push(member);
            }
        }
        if kept.len() < 2 {
            return kept.pop().unwrap_or_else(Ty::unknown);
        }
        let texts: Vec<String> = kept
            .into_iter()
            .map(|member| match member.prec {
                Prec::Union => format!("({})", member.text),
                _ => member.text,
            })
            .collect();
        Ty {
            text: texts.join(" & "),
            prec: Prec::Intersection,
        }
    }
}
