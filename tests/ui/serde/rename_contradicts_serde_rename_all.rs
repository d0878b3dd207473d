use elicit::Elicit;

#[derive(Elicit, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Form {
    #[elicit(rename = "user_name")]
    user_name: String,
}

fn main() {}
