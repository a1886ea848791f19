//! Step argument templating: `{{name}}` is the plan input `name` (strings
//! verbatim, other values as compact JSON), `{{steps.ID}}` the text that
//! TEMPLATE step `ID` produced. An unknown placeholder is an error, so a
//! typo fails the step instead of writing an empty string into a file.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Renders `{{name}}` / `{{steps.ID}}` placeholders. An opening `{{` without
/// a closing `}}` is left as it is.
pub fn render(
    text: &str,
    inputs: &Map<String, Value>,
    outputs: &BTreeMap<String, String>,
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open + 2..].find("}}") else {
            break;
        };
        out.push_str(&rest[..open]);
        let name = rest[open + 2..open + 2 + close].trim();
        let value = match name.strip_prefix("steps.") {
            Some(step) => outputs.get(step).cloned(),
            None => inputs.get(name).map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }),
        };
        match value {
            Some(v) => out.push_str(&v),
            None => return Err(format!("unknown placeholder {{{{{name}}}}}")),
        }
        rest = &rest[open + 2 + close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Renders every string inside `value` (members and items at any depth).
pub fn render_value(
    value: &Value,
    inputs: &Map<String, Value>,
    outputs: &BTreeMap<String, String>,
) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => Value::String(render(s, inputs, outputs)?),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| render_value(v, inputs, outputs))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => {
            let mut rendered = Map::new();
            for (k, v) in map {
                rendered.insert(k.clone(), render_value(v, inputs, outputs)?);
            }
            Value::Object(rendered)
        }
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_render_inputs_and_step_outputs() {
        let inputs: Map<String, Value> =
            serde_json::from_value(json!({ "version": "2.4.0", "n": 3 })).unwrap_or_default();
        let outputs = BTreeMap::from([("render".to_string(), "notes".to_string())]);
        assert_eq!(
            render("v{{version}} x{{ n }} {{steps.render}}", &inputs, &outputs),
            Ok("v2.4.0 x3 notes".into())
        );
        assert_eq!(
            render("{{missing}}", &inputs, &outputs),
            Err("unknown placeholder {{missing}}".into())
        );
        assert_eq!(
            render("open {{ only", &inputs, &outputs),
            Ok("open {{ only".into())
        );
    }
}
