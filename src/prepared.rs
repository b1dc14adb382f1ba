//! A run surface's catalog while it is made: `prepareRun` plans what the
//! model sees and returns; the tools arrive as JSON text over the next
//! turns of the event loop (`tools.rs`), and once the last one is in, the
//! runtime's builder thread reads them, builds the catalog, the `MCP`
//! namespace and the plugin namespaces, and makes the agent run.
//!
//! An exec or wait that comes before the result is ready waits for it
//! without holding the JavaScript thread ([`Prepared::when_built`],
//! `early.rs`): the builder thread hands it on when it is done. The
//! `catalog` and `diagnostics` getters, which must answer at once, finish
//! it on the spot: the tools left are written at once, and the build runs
//! on the asking thread, or is waited for when the builder has started it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock, Weak};

use code_mode_core::catalog::{read_tools, Catalog, Keep};
use code_mode_core::config::CodeModeConfig;
use code_mode_core::messages;
use code_mode_core::model::{build_catalog, CatalogParts};
use code_mode_core::namespaces::Registration;
use code_mode_core::runs::host::Host;
use code_mode_core::runs::Toolbox;
use code_mode_core::runs::{AgentRun, RunOwner};
use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::engine::Engine;

/// What the build makes.
pub struct Built {
    /// `None` without `executeTool`.
    pub agent_run: Option<Arc<AgentRun>>,
    pub catalog: Arc<Catalog>,
    /// What the gateway could fix about the tools it passed.
    pub diagnostics: Vec<String>,
}

/// What the build needs besides the tools, known when `prepareRun`
/// returns.
pub struct Recipe {
    pub active: bool,
    /// The visible plugin namespaces, with their places in the registrations.
    pub namespaces: Vec<(usize, Registration)>,
    /// What the agent run is made of, when the context has `executeTool`.
    pub run: Option<RunInputs>,
    /// Tools the model sees whose schemas were left out, already read.
    pub problems: Vec<String>,
}

pub struct RunInputs {
    /// Where its cells run (told of the agent run in process isolation).
    pub engine: Arc<Engine>,
    pub config: Arc<CodeModeConfig>,
    pub host: Arc<dyn Host>,
    pub visible_tools: Vec<String>,
    pub owner: RunOwner,
}

/// The work of one build: the recipe and the tools' JSON texts so far.
struct Work {
    recipe: Recipe,
    texts: Vec<String>,
}

enum Stage {
    /// Rows still arriving.
    Reading(Work),
    /// Every tool is in; handed to the builder thread.
    Queued(Work),
    /// A thread is building it.
    Building,
    Done,
}

/// What is called with the build's result once it has ended, on the
/// thread that ended it.
pub type Waiter = Box<dyn FnOnce(&Result<Arc<Built>, String>) + Send>;

/// The stage of a build and who waits for it.
struct State {
    stage: Stage,
    waiters: Vec<Waiter>,
}

/// One surface's build.
pub struct Prepared {
    state: Mutex<State>,
    /// Signalled (under `state`) when a build ends.
    ended: Condvar,
    built: OnceLock<Result<Arc<Built>, String>>,
}

impl Prepared {
    /// A build waiting for its tools.
    pub fn reading(recipe: Recipe) -> Arc<Self> {
        Self::with(Stage::Reading(Work {
            recipe,
            texts: Vec::new(),
        }))
    }

    /// A build with no tools, done now: an inactive run, whose catalog is
    /// empty.
    pub fn empty(recipe: Recipe) -> Arc<Self> {
        let prepared = Self::with(Stage::Done);
        let _ = prepared.built.set(run_build(recipe, Vec::new()));
        prepared
    }

    /// What a dropped surface holds while its build is freed elsewhere: a
    /// build with nothing in it.
    pub fn retired() -> Arc<Self> {
        Self::with(Stage::Done)
    }

    fn with(stage: Stage) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State {
                stage,
                waiters: Vec::new(),
            }),
            ended: Condvar::new(),
            built: OnceLock::new(),
        })
    }

    /// The result, when the build has ended.
    pub fn get(&self) -> Option<&Result<Arc<Built>, String>> {
        self.built.get()
    }

    /// The run's toolbox, once built.
    pub fn toolbox(&self) -> Option<Arc<Toolbox>> {
        let built = self.get()?.as_ref().ok()?;
        Some(built.agent_run.as_ref()?.toolbox.clone())
    }

    /// One slice of tools as JSON text; the last one queues the build on
    /// `builder`. Slices after the last are ignored.
    pub fn push(self: &Arc<Self>, text: String, last: bool, builder: Option<&Builder>) {
        let mut state = self.state.lock();
        let Stage::Reading(work) = &mut state.stage else {
            return;
        };
        work.texts.push(text);
        if last {
            if let Stage::Reading(work) = std::mem::replace(&mut state.stage, Stage::Building) {
                state.stage = Stage::Queued(work);
            }
            drop(state);
            if let Some(builder) = builder {
                builder.queue(Arc::downgrade(self));
            }
        }
    }

    /// Builds now if every tool is in and no thread has started: what the
    /// builder thread does with each surface it is handed.
    fn build_if_queued(&self) {
        let mut state = self.state.lock();
        if matches!(state.stage, Stage::Queued(_)) {
            self.build(&mut state);
        }
    }

    /// Takes the queued work, builds it with the lock released, and marks it
    /// done.
    fn build(&self, state: &mut MutexGuard<State>) {
        let Stage::Queued(work) = std::mem::replace(&mut state.stage, Stage::Building) else {
            return;
        };
        let built = MutexGuard::unlocked(state, || run_build(work.recipe, work.texts));
        self.end(state, built);
    }

    /// Records the result and hands it to the waiters, with the lock
    /// released (a waiter may start a run).
    fn end(&self, state: &mut MutexGuard<State>, built: Result<Arc<Built>, String>) {
        let _ = self.built.set(built);
        state.stage = Stage::Done;
        self.ended.notify_all();
        let waiters = std::mem::take(&mut state.waiters);
        if waiters.is_empty() {
            return;
        }
        MutexGuard::unlocked(state, || {
            if let Some(built) = self.built.get() {
                for waiter in waiters {
                    // A waiter's panic must not stop the others, nor reach
                    // the thread that built (the builder, or Node's).
                    let _ = catch_unwind(AssertUnwindSafe(|| waiter(built)));
                }
            }
        });
    }

    /// Calls `waiter` with the result once the build has ended: now, on this
    /// thread, when it has; else on the thread that ends it.
    pub fn when_built(&self, waiter: Waiter) {
        let mut state = self.state.lock();
        if !matches!(state.stage, Stage::Done) {
            state.waiters.push(waiter);
            return;
        }
        drop(state);
        if let Some(built) = self.built.get() {
            waiter(built);
        }
    }

    /// Ends a build whose tools could not all be written (`prepare.js`
    /// failed in a background turn): every call that needs it gets the
    /// error. Nothing once every tool is in.
    pub fn fail(&self, message: String) {
        let mut state = self.state.lock();
        if matches!(state.stage, Stage::Reading(_)) {
            state.stage = Stage::Building;
            self.end(&mut state, Err(messages::tools_unreadable(&message)));
        }
    }

    /// The result, once every tool is in: built on this thread when no other
    /// has started, else waited for.
    pub fn finish(&self) -> Result<Arc<Built>, String> {
        let mut state = self.state.lock();
        loop {
            match &state.stage {
                Stage::Done => break,
                Stage::Reading(_) => return Err(messages::TOOLS_UNFINISHED.to_owned()),
                Stage::Queued(_) => self.build(&mut state),
                Stage::Building => self.ended.wait(&mut state),
            }
        }
        drop(state);
        self.built
            .get()
            .cloned()
            .unwrap_or_else(|| Err(messages::CATALOG_FAILED.to_owned()))
    }
}

/// Reads the tools' JSON texts, builds the catalog and makes the agent run.
/// A panic is caught and becomes the build's error; it never reaches Node.
fn run_build(recipe: Recipe, texts: Vec<String>) -> Result<Arc<Built>, String> {
    let built = catch_unwind(AssertUnwindSafe(|| {
        let mut problems = recipe.problems;
        let mut tools = Vec::new();
        for text in &texts {
            read_tools(text, Keep::Catalog, &mut tools, &mut problems)?;
        }
        // What a sandbox builds its copy of the agent run from.
        let copied = recipe
            .run
            .as_ref()
            .filter(|run| run.engine.is_process())
            .map(|_| serde_json::to_string(&recipe.namespaces).unwrap_or_default());
        let CatalogParts {
            catalog,
            mcp,
            namespaces,
        } = build_catalog(&tools, recipe.active, recipe.namespaces);
        problems.extend(mcp.problems.iter().cloned());
        let agent_run = recipe.run.map(|run| {
            let agent_run = AgentRun::new(
                run.config,
                catalog.clone(),
                mcp,
                namespaces,
                run.host,
                run.visible_tools,
                run.owner,
            );
            if let Some(namespaces) = copied {
                run.engine
                    .register(&agent_run, recipe.active, namespaces, Arc::new(texts));
            }
            agent_run
        });
        Ok(Arc::new(Built {
            agent_run,
            catalog,
            diagnostics: problems,
        }))
    }));
    built.unwrap_or_else(|panic| {
        let reason = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(messages::catalog_failed(&reason))
    })
}

/// What the builder thread is handed.
enum Job {
    /// A surface whose tools are all in: build its catalog, if nobody has.
    Build(Weak<Prepared>),
    /// A dropped surface's build: freed here, since freeing a large
    /// catalog, its `MCP` namespace and agent run takes milliseconds (about
    /// 15 ms for 5,000 MCP tools) that the JavaScript thread would
    /// otherwise spend in the garbage collector's finalizer turn.
    Retire(Arc<Prepared>),
}

/// The runtime's builder thread: builds queued catalogs one after another,
/// skipping those of surfaces already gone, and frees those of dropped
/// surfaces. It ends after `close()` or when the runtime is dropped, once
/// the job in progress is done; builds queued after that happen when first
/// needed, and builds dropped after that are freed where they are dropped.
pub struct Builder {
    queue: Mutex<Option<mpsc::Sender<Job>>>,
}

impl Builder {
    pub fn start() -> std::io::Result<Self> {
        let (queue, jobs) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("code-mode-prepare".into())
            .spawn(move || {
                for job in jobs {
                    match job {
                        Job::Build(prepared) => {
                            if let Some(prepared) = prepared.upgrade() {
                                prepared.build_if_queued();
                            }
                        }
                        Job::Retire(prepared) => drop(prepared),
                    }
                }
            })?;
        Ok(Self {
            queue: Mutex::new(Some(queue)),
        })
    }

    fn queue(&self, prepared: Weak<Prepared>) {
        if let Some(queue) = &*self.queue.lock() {
            let _ = queue.send(Job::Build(prepared));
        }
    }

    /// Frees `prepared` on the builder thread (here when it has ended). A
    /// build still in progress there keeps its own reference, and ends.
    pub fn retire(&self, prepared: Arc<Prepared>) {
        let queue = self.queue.lock();
        if let Some(queue) = &*queue {
            // A failed send hands the job back, dropped here.
            let _ = queue.send(Job::Retire(prepared));
        }
    }

    /// Lets the thread end: it takes no more work.
    pub fn stop(&self) {
        self.queue.lock().take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use code_mode_core::runs::host::{CallKey, Dispatch};

    /// A host that records the name of the thread that drops it.
    struct Witness(Arc<Mutex<Option<String>>>);

    impl Host for Witness {
        fn dispatch(&self, _calls: Vec<Dispatch>) {}
        fn abort(&self, _keys: Vec<CallKey>) {}
    }

    impl Drop for Witness {
        fn drop(&mut self) {
            *self.0.lock() = std::thread::current().name().map(str::to_owned);
        }
    }

    fn built_with_witness() -> (Arc<Prepared>, Arc<Mutex<Option<String>>>) {
        let dropped_on = Arc::new(Mutex::new(None));
        let recipe = Recipe {
            active: true,
            namespaces: Vec::new(),
            run: Some(RunInputs {
                engine: Arc::new(Engine::Thread(
                    code_mode_core::runs::Engine::new(1).unwrap(),
                )),
                config: Arc::new(CodeModeConfig::default()),
                host: Arc::new(Witness(dropped_on.clone())),
                visible_tools: Vec::new(),
                owner: RunOwner {
                    agent_run_id: "run".into(),
                    session_id: None,
                    session_key: None,
                    agent_id: None,
                },
            }),
            problems: Vec::new(),
        };
        (Prepared::empty(recipe), dropped_on)
    }

    #[test]
    fn a_retired_build_is_freed_on_the_builder_thread() {
        let builder = Builder::start().unwrap();
        let (prepared, dropped_on) = built_with_witness();
        assert!(prepared.get().is_some_and(Result::is_ok));
        builder.retire(prepared);
        for _ in 0..10_000 {
            if dropped_on.lock().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(dropped_on.lock().as_deref(), Some("code-mode-prepare"));
        builder.stop();
    }

    #[test]
    fn a_build_retired_after_the_builder_stopped_is_freed_where_it_is_dropped() {
        let builder = Builder::start().unwrap();
        builder.stop();
        let (prepared, dropped_on) = built_with_witness();
        builder.retire(prepared);
        assert_eq!(dropped_on.lock().as_deref(), std::thread::current().name());
    }
}
