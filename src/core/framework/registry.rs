//! Out-of-tree plugins: a name → factory table consulted when a profile names a plugin this build
//! does not have (upstream `frameworkruntime.Registry` merged with `app.WithPlugin`).
//!
//! A custom scheduler binary fills a [`Registry`] and installs it once, before anything reads the
//! configuration (see [`crate::plugin::Builder`]); every framework built afterwards — the live
//! scheduler, `check-config`, `simulate`, `explain` — sees the same plugins. Reading the installed
//! table is not I/O: it is a value fixed at start-up, like the configuration.

use super::Plugin;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// Builds a plugin from its `pluginConfig` args (`None` when the profile gives none). The error
/// says what is wrong with the args; the caller adds the profile and plugin name.
pub type Factory = Arc<dyn Fn(Option<&serde_json::Value>) -> Result<Arc<dyn Plugin>, String> + Send + Sync>;

/// Why a plugin cannot be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryError {
    /// A plugin of this build already has the name.
    InTree(String),
    /// The name was registered twice.
    Duplicate(String),
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::InTree(n) => write!(f, "plugin {n:?} is an in-tree plugin; choose another name"),
            RegistryError::Duplicate(n) => write!(f, "plugin {n:?} is registered twice"),
        }
    }
}

impl std::error::Error for RegistryError {}

/// Out-of-tree plugin factories by name.
#[derive(Clone, Default)]
pub struct Registry {
    factories: BTreeMap<String, Factory>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.factories.keys()).finish()
    }
}

impl Registry {
    /// Register a factory that reads the raw args.
    pub fn register(&mut self, name: &str, factory: Factory) -> Result<(), RegistryError> {
        if super::plugins::is_in_tree(name) {
            return Err(RegistryError::InTree(name.to_string()));
        }
        if self.factories.contains_key(name) {
            return Err(RegistryError::Duplicate(name.to_string()));
        }
        self.factories.insert(name.to_string(), factory);
        Ok(())
    }

    /// Register a plugin whose args decode into `A` (absent args: `A::default()`; the
    /// `apiVersion`/`kind` keys users copy from upstream examples are ignored).
    pub fn register_with_args<A, P, F>(&mut self, name: &str, build: F) -> Result<(), RegistryError>
    where
        A: serde::de::DeserializeOwned + Default,
        P: Plugin + 'static,
        F: Fn(A) -> Result<P, String> + Send + Sync + 'static,
    {
        let factory: Factory = Arc::new(move |args: Option<&serde_json::Value>| {
            let typed = decode_args::<A>(args)?;
            Ok(Arc::new(build(typed)?) as Arc<dyn Plugin>)
        });
        self.register(name, factory)
    }

    /// The factory registered under `name`.
    pub fn get(&self, name: &str) -> Option<&Factory> {
        self.factories.get(name)
    }

    /// Registered names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.factories.keys().map(String::as_str).collect()
    }
}

/// Decode plugin args into `A`, as upstream decodes typed args (strictness is up to `A`'s serde
/// attributes, e.g. `deny_unknown_fields`).
pub fn decode_args<A: serde::de::DeserializeOwned + Default>(args: Option<&serde_json::Value>) -> Result<A, String> {
    match args {
        None | Some(serde_json::Value::Null) => Ok(A::default()),
        Some(v) => {
            let mut v = v.clone();
            if let Some(obj) = v.as_object_mut() {
                obj.remove("apiVersion");
                obj.remove("kind");
            }
            serde_json::from_value(v).map_err(|e| format!("decoding args: {e}"))
        }
    }
}

static INSTALLED: OnceLock<Registry> = OnceLock::new();

/// Install the process's out-of-tree plugins (once, at start-up). A second call returns the
/// registry it was given back.
pub fn install(registry: Registry) -> Result<(), Registry> {
    INSTALLED.set(registry)
}

/// The installed registry (empty in the shipped binary).
pub fn installed() -> &'static Registry {
    INSTALLED.get_or_init(Registry::default)
}
