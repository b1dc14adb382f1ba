//! What the guest finds under `MCP` and under each `MCP.<server>`, in the
//! order it is listed: worked out once per run surface, the first time a cell
//! looks, so that each cell makes only the members it uses.

use std::collections::HashMap;

use super::McpNamespace;

/// A member of `MCP.<server>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Member {
    /// `$api`.
    Api,
    /// `servers[s].tools[t]`, called by its one-part path.
    Tool(usize),
    /// `refusals[r]`: a function that only says why it cannot be called.
    Refusal(usize),
    /// `groups[g]` of the layout: `resources` or `prompts`.
    Group(usize),
}

/// The members of one `MCP.<server>` object.
#[derive(Debug, Default)]
pub struct ServerLayout {
    /// Name and member, in the order they are listed: `$api`, the tools
    /// with one-part paths, the refusals, then the groups.
    pub members: Vec<(String, Member)>,
    index: HashMap<String, u32>,
    /// Each group's name and its operations: name and tool index.
    pub groups: Vec<(String, Vec<(String, usize)>)>,
}

impl ServerLayout {
    /// The place of the member with this name.
    pub fn find(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }
}

impl McpNamespace {
    /// The members of `MCP.<servers[server]>`.
    pub fn layout(&self, server: usize) -> Option<&ServerLayout> {
        self.layouts
            .get_or_init(|| self.build_layouts())
            .get(server)
    }

    /// The server with this identifier under `MCP`.
    pub fn server_index(&self, identifier: &str) -> Option<usize> {
        self.server_index
            .get_or_init(|| {
                self.servers
                    .iter()
                    .enumerate()
                    .map(|(s, server)| (server.identifier.clone(), s))
                    .collect()
            })
            .get(identifier)
            .copied()
    }

    /// Every server's layout, in one pass over the tools and one over the
    /// refusals.
    fn build_layouts(&self) -> Vec<ServerLayout> {
        let mut layouts: Vec<ServerLayout> = (0..self.servers.len())
            .map(|s| self.tools_layout(s))
            .collect();
        for (r, refusal) in self.refusals.iter().enumerate() {
            if let (Some(layout), [name]) =
                (layouts.get_mut(refusal.server), refusal.path.as_slice())
            {
                layout.members.push((name.clone(), Member::Refusal(r)));
            }
        }
        for layout in &mut layouts {
            for (g, (group, _)) in layout.groups.iter().enumerate() {
                layout.members.push((group.clone(), Member::Group(g)));
            }
            // Names are unique: the namespace's identifiers make them so.
            for (place, (name, _)) in layout.members.iter().enumerate() {
                layout.index.entry(name.clone()).or_insert(place as u32);
            }
        }
        layouts
    }

    /// `$api` and the tools of `servers[s]`, with its groups (not yet listed
    /// as members).
    fn tools_layout(&self, s: usize) -> ServerLayout {
        let mut layout = ServerLayout::default();
        layout.members.push(("$api".to_owned(), Member::Api));
        for (t, tool) in self.servers[s].tools.iter().enumerate() {
            match tool.path.as_slice() {
                [name] => layout.members.push((name.clone(), Member::Tool(t))),
                [group, name] => {
                    // Two groups at most (resources, prompts).
                    let g = match layout.groups.iter().position(|(g, _)| g == group) {
                        Some(g) => g,
                        None => {
                            layout.groups.push((group.clone(), Vec::new()));
                            layout.groups.len() - 1
                        }
                    };
                    layout.groups[g].1.push((name.clone(), t));
                }
                _ => {}
            }
        }
        layout
    }
}
