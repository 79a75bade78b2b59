//! Reading Tiled's two map formats into one [`MapData`].

use std::collections::BTreeMap;

use super::{Fault, MapData, Object, Properties, Value, fault};

// ---- .tmj ------------------------------------------------------------------------------

fn json_properties(v: &serde_json::Value, place: &str) -> Result<Properties, Fault> {
    let mut out = Properties::new();
    let Some(list) = v.get("properties") else {
        return Ok(out);
    };
    let list = list
        .as_array()
        .ok_or_else(|| fault(place, "`properties` is not a list"))?;
    for p in list {
        let name = p
            .get("name")
            .and_then(|n| n.as_str())
            .ok_or_else(|| fault(place, "a property without a name"))?;
        let value = match p.get("value") {
            Some(serde_json::Value::String(s)) => Value::Text(s.clone()),
            Some(serde_json::Value::Bool(b)) => Value::Bool(*b),
            Some(serde_json::Value::Number(n)) => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
            _ => {
                return Err(fault(
                    place,
                    format!("property `{name}` has no text, number or true/false value"),
                ));
            }
        };
        out.insert(name.to_string(), value);
    }
    Ok(out)
}

pub(super) fn parse_tmj(text: &str) -> Result<MapData, Fault> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| fault("", format!("not JSON: {e}")))?;
    let num = |v: &serde_json::Value, key: &str, place: &str| -> Result<f64, Fault> {
        v.get(key)
            .and_then(|x| x.as_f64())
            .ok_or_else(|| fault(place, format!("no number `{key}`")))
    };
    if v.get("infinite").and_then(|x| x.as_bool()) == Some(true) {
        return Err(fault("", "an infinite map; make the room a fixed-size map"));
    }
    if let Some(o) = v.get("orientation").and_then(|x| x.as_str())
        && o != "orthogonal"
    {
        return Err(fault(
            "",
            format!("the map is {o}; rooms are orthogonal maps"),
        ));
    }
    let mut data = MapData {
        width: num(&v, "width", "")? as usize,
        height: num(&v, "height", "")? as usize,
        tile_w: num(&v, "tilewidth", "")?,
        tile_h: num(&v, "tileheight", "")?,
        properties: json_properties(&v, "map properties: ")?,
        ..MapData::default()
    };
    for ts in v
        .get("tilesets")
        .and_then(|t| t.as_array())
        .into_iter()
        .flatten()
    {
        let first = num(ts, "firstgid", "a tileset: ")? as u32;
        let mut walls = BTreeMap::new();
        for tile in ts
            .get("tiles")
            .and_then(|t| t.as_array())
            .into_iter()
            .flatten()
        {
            let id = num(tile, "id", "a tileset tile: ")? as u32;
            let props = json_properties(tile, &format!("tile {id}: "))?;
            if let Some(w) = props.get("wall") {
                walls.insert(id, *w == Value::Bool(true));
            }
        }
        data.tilesets.push((first, walls));
    }
    let mut layers: Vec<&serde_json::Value> = Vec::new();
    fn flatten<'a>(list: &'a serde_json::Value, out: &mut Vec<&'a serde_json::Value>) {
        for l in list.as_array().into_iter().flatten() {
            if l.get("type").and_then(|t| t.as_str()) == Some("group") {
                if let Some(inner) = l.get("layers") {
                    flatten(inner, out);
                }
            } else {
                out.push(l);
            }
        }
    }
    if let Some(list) = v.get("layers") {
        flatten(list, &mut layers);
    }
    for l in layers {
        let name = l
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or("")
            .to_string();
        let place = format!("layer `{name}`: ");
        match l.get("type").and_then(|t| t.as_str()) {
            Some("tilelayer") => {
                let data_v = l.get("data").ok_or_else(|| {
                    fault(&place, "no `data` (chunks of infinite maps are not read)")
                })?;
                let gids: Vec<u32> = match data_v {
                    serde_json::Value::Array(a) => a
                        .iter()
                        .map(|g| g.as_u64().map(|g| g as u32))
                        .collect::<Option<Vec<u32>>>()
                        .ok_or_else(|| {
                            fault(&place, "`data` holds something that is not a tile id")
                        })?,
                    serde_json::Value::String(s) => {
                        let comp = l.get("compression").and_then(|c| c.as_str()).unwrap_or("");
                        decode_base64_layer(s, comp).map_err(|p| fault(&place, p))?
                    }
                    _ => return Err(fault(&place, "`data` is neither a list nor Base64 text")),
                };
                data.tile_layers.push((name, gids));
            }
            Some("objectgroup") => {
                let mut objects = Vec::new();
                for o in l
                    .get("objects")
                    .and_then(|o| o.as_array())
                    .into_iter()
                    .flatten()
                {
                    let id = o.get("id").and_then(|i| i.as_u64()).unwrap_or(0);
                    let oplace = format!("{place}object {id}: ");
                    let polyline = o.get("polyline").and_then(|p| p.as_array()).map(|pts| {
                        pts.iter()
                            .map(|p| {
                                (
                                    p.get("x").and_then(|x| x.as_f64()).unwrap_or(f64::NAN),
                                    p.get("y").and_then(|y| y.as_f64()).unwrap_or(f64::NAN),
                                )
                            })
                            .collect()
                    });
                    objects.push(Object {
                        id,
                        class: o
                            .get("type")
                            .or_else(|| o.get("class"))
                            .and_then(|c| c.as_str())
                            .unwrap_or("")
                            .to_string(),
                        x: num(o, "x", &oplace)?,
                        y: num(o, "y", &oplace)?,
                        width: o.get("width").and_then(|x| x.as_f64()).unwrap_or(0.0),
                        height: o.get("height").and_then(|x| x.as_f64()).unwrap_or(0.0),
                        point: o.get("point").and_then(|p| p.as_bool()) == Some(true),
                        polyline,
                        properties: json_properties(o, &oplace)?,
                    });
                }
                data.object_layers.push((name, objects));
            }
            _ => {}
        }
    }
    Ok(data)
}

/// Decodes an uncompressed Base64 layer (little-endian `u32` gids).
fn decode_base64_layer(text: &str, compression: &str) -> Result<Vec<u32>, String> {
    if !compression.is_empty() {
        return Err(format!(
            "{compression}-compressed tile data; save the map with CSV or uncompressed Base64 layer data"
        ));
    }
    let mut bits: u32 = 0;
    let mut count = 0;
    let mut bytes = Vec::new();
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return Err(format!("`{}` in Base64 tile data", c as char)),
        };
        bits = (bits << 6) | u32::from(v);
        count += 6;
        if count >= 8 {
            count -= 8;
            bytes.push((bits >> count) as u8);
        }
    }
    if bytes.len() % 4 != 0 {
        return Err("Base64 tile data is not a whole number of tile ids".into());
    }
    Ok(bytes
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

// ---- .tmx ------------------------------------------------------------------------------

fn xml_properties(node: roxmltree::Node<'_, '_>, place: &str) -> Result<Properties, Fault> {
    let mut out = Properties::new();
    let Some(props) = node.children().find(|c| c.has_tag_name("properties")) else {
        return Ok(out);
    };
    for p in props.children().filter(|c| c.has_tag_name("property")) {
        let name = p
            .attribute("name")
            .ok_or_else(|| fault(place, "a property without a name"))?;
        let raw = p
            .attribute("value")
            .map(str::to_string)
            .unwrap_or_else(|| p.text().unwrap_or("").to_string());
        let value = match p.attribute("type").unwrap_or("string") {
            "bool" => Value::Bool(raw == "true"),
            "int" | "float" => Value::Number(raw.trim().parse().map_err(|_| {
                fault(place, format!("property `{name}`: `{raw}` is not a number"))
            })?),
            _ => Value::Text(raw),
        };
        out.insert(name.to_string(), value);
    }
    Ok(out)
}

pub(super) fn parse_tmx(text: &str) -> Result<MapData, Fault> {
    let doc = roxmltree::Document::parse(text).map_err(|e| fault("", format!("not XML: {e}")))?;
    let map = doc.root_element();
    if !map.has_tag_name("map") {
        return Err(fault("", "not a Tiled map (no <map> element)"));
    }
    let num = |n: roxmltree::Node<'_, '_>, key: &str, place: &str| -> Result<f64, Fault> {
        n.attribute(key)
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| fault(place, format!("no number `{key}`")))
    };
    if map.attribute("infinite") == Some("1") {
        return Err(fault("", "an infinite map; make the room a fixed-size map"));
    }
    if let Some(o) = map.attribute("orientation")
        && o != "orthogonal"
    {
        return Err(fault(
            "",
            format!("the map is {o}; rooms are orthogonal maps"),
        ));
    }
    let mut data = MapData {
        width: num(map, "width", "")? as usize,
        height: num(map, "height", "")? as usize,
        tile_w: num(map, "tilewidth", "")?,
        tile_h: num(map, "tileheight", "")?,
        properties: xml_properties(map, "map properties: ")?,
        ..MapData::default()
    };
    for ts in map.children().filter(|c| c.has_tag_name("tileset")) {
        let first = num(ts, "firstgid", "a tileset: ")? as u32;
        let mut walls = BTreeMap::new();
        for tile in ts.children().filter(|c| c.has_tag_name("tile")) {
            let id = num(tile, "id", "a tileset tile: ")? as u32;
            let props = xml_properties(tile, &format!("tile {id}: "))?;
            if let Some(w) = props.get("wall") {
                walls.insert(id, *w == Value::Bool(true));
            }
        }
        data.tilesets.push((first, walls));
    }
    fn layers<'a, 'b>(n: roxmltree::Node<'a, 'b>, out: &mut Vec<roxmltree::Node<'a, 'b>>) {
        for c in n.children().filter(|c| c.is_element()) {
            if c.has_tag_name("group") {
                layers(c, out);
            } else if c.has_tag_name("layer") || c.has_tag_name("objectgroup") {
                out.push(c);
            }
        }
    }
    let mut list = Vec::new();
    layers(map, &mut list);
    for l in list {
        let name = l.attribute("name").unwrap_or("").to_string();
        let place = format!("layer `{name}`: ");
        if l.has_tag_name("layer") {
            let d = l
                .children()
                .find(|c| c.has_tag_name("data"))
                .ok_or_else(|| fault(&place, "no <data>"))?;
            let body = d.text().unwrap_or("");
            let gids = match d.attribute("encoding") {
                Some("csv") => body
                    .split(',')
                    .map(|g| g.trim().parse::<u32>())
                    .collect::<Result<Vec<u32>, _>>()
                    .map_err(|_| {
                        fault(
                            &place,
                            "CSV tile data holds something that is not a tile id",
                        )
                    })?,
                Some("base64") => {
                    decode_base64_layer(body, d.attribute("compression").unwrap_or(""))
                        .map_err(|p| fault(&place, p))?
                }
                _ => {
                    if d.children().any(|c| c.has_tag_name("chunk")) {
                        return Err(fault(&place, "chunked data (an infinite map)"));
                    }
                    d.children()
                        .filter(|c| c.has_tag_name("tile"))
                        .map(|t| t.attribute("gid").and_then(|g| g.parse().ok()).unwrap_or(0))
                        .collect()
                }
            };
            data.tile_layers.push((name, gids));
        } else {
            let mut objects = Vec::new();
            for o in l.children().filter(|c| c.has_tag_name("object")) {
                let id = o.attribute("id").and_then(|i| i.parse().ok()).unwrap_or(0);
                let oplace = format!("{place}object {id}: ");
                let polyline = o.children().find(|c| c.has_tag_name("polyline")).map(|p| {
                    p.attribute("points")
                        .unwrap_or("")
                        .split_whitespace()
                        .map(|pair| {
                            let mut it = pair
                                .split(',')
                                .map(|v| v.parse::<f64>().unwrap_or(f64::NAN));
                            (it.next().unwrap_or(f64::NAN), it.next().unwrap_or(f64::NAN))
                        })
                        .collect()
                });
                let opt = |k: &str| {
                    o.attribute(k)
                        .and_then(|v| v.parse::<f64>().ok())
                        .unwrap_or(0.0)
                };
                objects.push(Object {
                    id,
                    class: o
                        .attribute("type")
                        .or_else(|| o.attribute("class"))
                        .unwrap_or("")
                        .to_string(),
                    x: num(o, "x", &oplace)?,
                    y: num(o, "y", &oplace)?,
                    width: opt("width"),
                    height: opt("height"),
                    point: o.children().any(|c| c.has_tag_name("point")),
                    polyline,
                    properties: xml_properties(o, &oplace)?,
                });
            }
            data.object_layers.push((name, objects));
        }
    }
    Ok(data)
}
