import glob
import os
import re
from pathlib import Path
from typing import Optional, Union

import torch

from hayakoe.logging import logger


def load_checkpoint(
    checkpoint_path: Union[str, Path],
    model: torch.nn.Module,
    optimizer: Optional[torch.optim.Optimizer] = None,
    skip_optimizer: bool = False,
    for_infer: bool = False,
    device: Union[str, torch.device] = "cpu",
) -> tuple[torch.nn.Module, Optional[torch.optim.Optimizer], float, int]:
    """
    지정된 경로에서 체크포인트를 로드하고 모델과 옵티마이저를 업데이트한다.

    Args:
        checkpoint_path (Union[str, Path]): 체크포인트 파일 경로
        model (torch.nn.Module): 업데이트할 모델
        optimizer (Optional[torch.optim.Optimizer]): 업데이트할 옵티마이저. None이면 업데이트하지 않음
        skip_optimizer (bool): 옵티마이저 업데이트를 스킵할지 여부 플래그
        for_infer (bool): 추론용으로 로드할지 여부 플래그

    Returns:
        tuple[torch.nn.Module, Optional[torch.optim.Optimizer], float, int]: 업데이트된 모델과 옵티마이저, 학습률, 이터레이션 횟수
    """

    assert os.path.isfile(checkpoint_path)
    checkpoint_dict = torch.load(checkpoint_path, map_location=device)
    iteration = checkpoint_dict["iteration"]
    learning_rate = checkpoint_dict["learning_rate"]
    logger.info(
        f"Loading model and optimizer at iteration {iteration} from {checkpoint_path}"
    )
    if (
        optimizer is not None
        and not skip_optimizer
        and checkpoint_dict["optimizer"] is not None
    ):
        optimizer.load_state_dict(checkpoint_dict["optimizer"])

    saved_state_dict = checkpoint_dict["model"]
    if hasattr(model, "module"):
        state_dict = model.module.state_dict()
    else:
        state_dict = model.state_dict()

    new_state_dict = {}
    for k, v in state_dict.items():
        try:
            # assert "emb_g" not in k
            new_state_dict[k] = saved_state_dict[k]
            assert saved_state_dict[k].shape == v.shape, (
                saved_state_dict[k].shape,
                v.shape,
            )
        except (KeyError, AssertionError):
            # 구 버전에서의 업그레이드 대응
            if "ja_bert_proj" in k:
                v = torch.zeros_like(v)
                logger.warning(
                    f"Seems you are using the old version of the model, the {k} is automatically set to zero for backward compatibility"
                )
            elif "enc_q" in k and for_infer:
                continue
            else:
                # 여기서 죽지 않으면 해당 파라미터가 초기값 그대로 남아,
                # 로드는 "성공" 한 채 잡음/무의미한 출력이 나온다 (조용한 실패).
                raise RuntimeError(
                    f"체크포인트에 '{k}' 가중치가 없거나 shape 이 일치하지"
                    f" 않습니다: {checkpoint_path}"
                )

            new_state_dict[k] = v

    if hasattr(model, "module"):
        model.module.load_state_dict(new_state_dict, strict=False)
    else:
        model.load_state_dict(new_state_dict, strict=False)

    logger.info(f"Loaded '{checkpoint_path}' (iteration {iteration})")

    return model, optimizer, learning_rate, iteration


def save_checkpoint(
    model: torch.nn.Module,
    optimizer: Union[torch.optim.Optimizer, torch.optim.AdamW],
    learning_rate: float,
    iteration: int,
    checkpoint_path: Union[str, Path],
) -> None:
    """
    모델과 옵티마이저의 상태를 지정된 경로에 저장한다.

    Args:
        model (torch.nn.Module): 저장할 모델
        optimizer (Union[torch.optim.Optimizer, torch.optim.AdamW]): 저장할 옵티마이저
        learning_rate (float): 학습률
        iteration (int): 이터레이션 횟수
        checkpoint_path (Union[str, Path]): 저장 경로
    """
    logger.info(
        f"Saving model and optimizer state at iteration {iteration} to {checkpoint_path}"
    )
    if hasattr(model, "module"):
        state_dict = model.module.state_dict()
    else:
        state_dict = model.state_dict()
    torch.save(
        {
            "model": state_dict,
            "iteration": iteration,
            "optimizer": optimizer.state_dict(),
            "learning_rate": learning_rate,
        },
        checkpoint_path,
    )


def clean_checkpoints(
    model_dir_path: Union[str, Path] = "logs/44k/",
    n_ckpts_to_keep: int = 2,
    sort_by_time: bool = True,
) -> None:
    """
    지정된 디렉토리에서 오래된 체크포인트를 삭제하여 디스크 공간을 확보한다

    Args:
        model_dir_path (Union[str, Path]): 모델이 저장된 디렉토리 경로
        n_ckpts_to_keep (int): 유지할 체크포인트 수 (G_0.pth, D_0.pth 제외)
        sort_by_time (bool): True이면 시간순으로 삭제, False이면 이름순으로 삭제
    """

    ckpts_files = [
        f
        for f in os.listdir(model_dir_path)
        if os.path.isfile(os.path.join(model_dir_path, f))
    ]

    def name_key(_f: str) -> int:
        return int(re.match("._(\\d+)\\.pth", _f).group(1))  # type: ignore

    def time_key(_f: str) -> float:
        return os.path.getmtime(os.path.join(model_dir_path, _f))

    sort_key = time_key if sort_by_time else name_key

    def x_sorted(_x: str) -> list[str]:
        return sorted(
            [f for f in ckpts_files if f.startswith(_x) and not f.endswith("_0.pth")],
            key=sort_key,
        )

    to_del = [
        os.path.join(model_dir_path, fn)
        for fn in (
            x_sorted("G_")[:-n_ckpts_to_keep]
            + x_sorted("D_")[:-n_ckpts_to_keep]
            + x_sorted("WD_")[:-n_ckpts_to_keep]
            + x_sorted("DUR_")[:-n_ckpts_to_keep]
        )
    ]

    for fn in to_del:
        os.remove(fn)
        logger.info(f"Free up space by deleting ckpt {fn}")


def get_latest_checkpoint_path(
    model_dir_path: Union[str, Path], regex: str = "G_*.pth"
) -> str:
    """
    지정된 디렉토리에서 최신 체크포인트 경로를 가져온다

    Args:
        model_dir_path (Union[str, Path]): 모델이 저장된 디렉토리 경로
        regex (str): 체크포인트 파일명의 정규표현식

    Returns:
        str: 최신 체크포인트 경로
    """

    f_list = glob.glob(os.path.join(str(model_dir_path), regex))
    f_list.sort(key=lambda f: int("".join(filter(str.isdigit, f))))
    try:
        x = f_list[-1]
    except IndexError:
        raise ValueError(f"No checkpoint found in {model_dir_path} with regex {regex}")

    return x
