//! What the what-if commands (`simulate`, `snapshot`, `capacity`) share before they read a
//! cluster: their error type and exit statuses, and the configuration they simulate with.

use crate::core::config::{self, Overrides, SchedulerConfig};
use crate::core::simulate::stream::Simulation;
use crate::core::simulate::SimError;
use std::path::Path;
use std::time::Instant;

/// Why a what-if command stopped, and its exit status.
#[derive(Debug)]
pub enum WhatIfError {
    /// Bad configuration or input (exit 2).
    Input(String),
    /// The cluster could not be read, or stdout could not be written (exit 1).
    Runtime(String),
}

impl WhatIfError {
    /// The process exit status.
    pub fn exit_code(&self) -> i32 {
        match self {
            WhatIfError::Input(_) => 2,
            WhatIfError::Runtime(_) => 1,
        }
    }
}

impl std::fmt::Display for WhatIfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WhatIfError::Input(m) | WhatIfError::Runtime(m) => f.write_str(m),
        }
    }
}

impl From<SimError> for WhatIfError {
    fn from(e: SimError) -> Self {
        WhatIfError::Input(e.0)
    }
}

/// Print the error and return the exit status.
pub fn exit_with(result: Result<(), WhatIfError>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}

/// The scheduler configuration a what-if command simulates with.
pub fn load_config(path: Option<&Path>) -> Result<SchedulerConfig, WhatIfError> {
    let (mut cfg, warnings) = match path {
        Some(p) => {
            let loaded = config::load_file(p).map_err(|e| WhatIfError::Input(e.to_string()))?;
            (loaded.config, loaded.warnings)
        }
        None => (config::default_config(), Vec::new()),
    };
    config::apply_overrides(&mut cfg, &Overrides { config_file_given: path.is_some(), ..Default::default() })
        .map_err(|e| WhatIfError::Input(e.to_string()))?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    Ok(cfg)
}
/// A simulation with `cfg`'s profiles that consults `cfg`'s extenders over HTTP (their filter,
/// prioritize and preempt answers are part of what the scheduler would decide).
pub fn new_simulation(cfg: &SchedulerConfig, seed: u64) -> Result<Simulation, WhatIfError> {
    let mut sim = Simulation::new(cfg, seed, Instant::now())?;
    let transport = crate::shell::extender_client::transport_for(cfg).map_err(|e| WhatIfError::Input(e.to_string()))?;
    sim.set_extenders(cfg, transport);
    Ok(sim)
}
