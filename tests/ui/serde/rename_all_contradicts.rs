use elicit::Elicit;

#[derive(Elicit, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[elicit(rename_all = "snake_case")]
struct Form {
    user_name: String,
}

fn main() {}
