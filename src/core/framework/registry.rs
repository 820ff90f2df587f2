//! Out-of-tree plugins: a name → factory table consulted when a profile names a plugin this build
//! does not have (upstream `frameworkruntime.Registry` merged with `app.WithPlugin`).
//!
//! A custom scheduler binary fills a [`Registry`] and installs it once, before anything reads the
//! configuration (see [`crate::plugin::Builder`]); every framework built afterwards — the live
//! scheduler, `check-config`, `simulate`, `explain` — sees the same plugins. Reading the installed
//! table is not I/O: it is a value fixed at start-up, like the configuration.

use super::Plugin;
use crate::core::custom_resources::CustomResource;
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
    /// Custom resources the plugins read, with the plugin that reads each.
    custom: Vec<(String, CustomResource)>,
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

    /// Declare that plugin `plugin` reads the custom resource `resource`: every scheduler whose
    /// profiles enable the plugin lists and watches it (a required kind: readiness waits for its
    /// first list, RBAC must grant list and watch), keeps its objects in the cache
    /// ([`crate::core::cache::Cache::custom_object`]) and delivers their changes as
    /// [`super::EventMask::CUSTOM_RESOURCE`] events. Declaring the same resource twice keeps one.
    pub fn read_custom_resource(&mut self, plugin: &str, resource: CustomResource) {
        if !self.custom.iter().any(|(_, r)| r.qualified() == resource.qualified()) {
            self.custom.push((plugin.to_string(), resource));
        }
    }

    /// The declared custom resources, with their readers.
    pub fn custom_resources(&self) -> &[(String, CustomResource)] {
        &self.custom
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
    if !crate::core::watched::install_custom(&registry.custom) {
        return Err(registry);
    }
    INSTALLED.set(registry)
}

/// The installed registry (empty in the shipped binary).
pub fn installed() -> &'static Registry {
    INSTALLED.get_or_init(Registry::default)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::framework::plugins::PluginContext;
    use crate::core::framework::{Framework, Points};

    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields, default)]
    struct Args {
        threshold: u32,
    }

    /// Rejects nodes once the threshold is reached (only the args matter here).
    struct Probe(u32);

    impl Plugin for Probe {
        fn name(&self) -> &'static str {
            "Probe"
        }
        fn filter(
            &self,
            _: &crate::core::cache::Cache,
            _: &crate::core::model::PodInfo,
            node: &crate::core::cache::NodeInfo,
            _: &crate::core::framework::PluginState,
        ) -> Result<(), crate::core::framework::Rejection> {
            if node.pods.len() as u32 >= self.0 {
                return Err(crate::core::framework::Rejection::unschedulable("too many pods"));
            }
            Ok(())
        }
        fn points(&self) -> Points {
            Points { filter: true, ..Default::default() }
        }
    }

    fn registry() -> Registry {
        let mut r = Registry::default();
        r.register_with_args(
            "Probe",
            |a: Args| if a.threshold > 10 { Err("threshold above 10".into()) } else { Ok(Probe(a.threshold)) },
        )
        .expect("register");
        r
    }

    #[test]
    fn names_must_be_new() {
        let mut r = registry();
        let probe: Factory = Arc::new(|_| Ok(Arc::new(Probe(0)) as Arc<dyn Plugin>));
        assert_eq!(r.register("Probe", probe.clone()), Err(RegistryError::Duplicate("Probe".into())));
        assert_eq!(
            r.register("NodeAffinity", probe).map_err(|e| e.to_string()),
            Err("plugin \"NodeAffinity\" is an in-tree plugin; choose another name".into())
        );
        assert_eq!(r.names(), vec!["Probe"]);
    }

    #[test]
    fn profiles_build_registered_plugins_with_their_args() {
        let ctx = PluginContext { registry: registry(), features: Default::default() };
        let build = |args: &str| {
            let yaml = format!(
                "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: s\n  plugins:\n    multiPoint:\n      enabled:\n      - name: Probe\n  pluginConfig:\n  - name: Probe\n    args: {args}\n"
            );
            let cfg = crate::core::config::load_str(&yaml, "c.yaml").expect("config").config;
            Framework::new(&cfg.profiles[0], &ctx).map(|fw| fw.plugin_names().contains(&"Probe"))
        };
        assert_eq!(build("{threshold: 3}"), Ok(true));
        assert_eq!(
            build("{threshold: 30}").map_err(|e| e.to_string()),
            Err("profile \"s\": plugin \"Probe\": threshold above 10".into())
        );
        let e = build("{treshold: 3}").map_err(|e| e.to_string()).unwrap_err();
        assert!(e.starts_with("profile \"s\": plugin \"Probe\": decoding args: unknown field `treshold`"), "{e}");
        // Without the registry the plugin does not exist.
        let cfg = crate::core::config::load_str(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: s\n  plugins:\n    filter:\n      enabled:\n      - name: Probe\n",
            "c.yaml",
        )
        .expect("config")
        .config;
        let empty = PluginContext { registry: Registry::default(), features: Default::default() };
        assert_eq!(
            Framework::new(&cfg.profiles[0], &empty).map(|_| ()).map_err(|e| e.to_string()),
            Err("profile \"s\": plugin \"Probe\" does not exist".into())
        );
    }
}
