//! The push notification configs the mock keeps, per task, and the client
//! its deliveries go out with; `push` runs the operations and deliveries.

use super::error::A2aError;
use super::store;
use a2a_conform_protocol::codes;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// The bound on one delivery POST.
pub(crate) const DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);
/// Configs kept per task.
const MAX_CONFIGS_PER_TASK: usize = 16;
/// Tasks with configs kept at once.
const MAX_TASKS: usize = store::MAX_TASKS;

/// One push notification config.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PushConfig {
    pub id: String,
    pub task_id: String,
    pub url: String,
    pub token: Option<String>,
    /// `(scheme, credentials)` from `authentication` (0.3: the first of `schemes`).
    pub auth: Option<(String, Option<String>)>,
}

/// Every config, per task, and the client deliveries go out with.
pub(crate) struct Registry {
    configs: Mutex<HashMap<String, Vec<PushConfig>>>,
    pub(super) client: reqwest::Client,
}

/// The delivery client could not be built (reqwest refused its TLS
/// backend or options): the peer does not start rather than deliver with
/// a default client that has no timeouts and follows redirects.
#[derive(Debug, thiserror::Error)]
#[error("the mock peer cannot build its push delivery client: {0}")]
pub(crate) struct DeliveryClientError(#[source] reqwest::Error);

impl Registry {
    pub(super) fn new() -> Result<Registry, DeliveryClientError> {
        let client = reqwest::Client::builder()
            .timeout(DELIVERY_TIMEOUT)
            .connect_timeout(DELIVERY_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("a2a-conform-mock/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(DeliveryClientError)?;
        Ok(Registry {
            configs: Mutex::new(HashMap::new()),
            client,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<PushConfig>>> {
        self.configs.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn put(&self, config: PushConfig) -> Result<(), A2aError> {
        let mut all = self.lock();
        if !all.contains_key(&config.task_id) && all.len() >= MAX_TASKS {
            return Err(A2aError::new(
                codes::INTERNAL_ERROR,
                "too many tasks with push notification configs",
            ));
        }
        let list = all.entry(config.task_id.clone()).or_default();
        list.retain(|c| c.id != config.id);
        if list.len() >= MAX_CONFIGS_PER_TASK {
            return Err(A2aError::invalid_params(format!(
                "a task takes at most {MAX_CONFIGS_PER_TASK} push notification configs"
            )));
        }
        list.push(config);
        Ok(())
    }

    pub(super) fn list(&self, task_id: &str) -> Vec<PushConfig> {
        self.lock().get(task_id).cloned().unwrap_or_default()
    }

    pub(super) fn remove(&self, task_id: &str, id: &str) {
        if let Some(list) = self.lock().get_mut(task_id) {
            list.retain(|c| c.id != id);
        }
    }

    pub(super) fn holds(&self, config: &PushConfig) -> bool {
        self.lock()
            .get(&config.task_id)
            .is_some_and(|l| l.iter().any(|c| c.id == config.id))
    }
}
